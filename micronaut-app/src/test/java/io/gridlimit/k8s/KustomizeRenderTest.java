package io.gridlimit.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Every Kustomize directory under {@code k8s/} renders with {@code kubectl kustomize}, and every rendered document
 * parses into the fabric8 Kubernetes model with nothing left unmapped (k8s/README.md). A misspelt field, a value of
 * the wrong type or an unknown kind fails, as the negative test on {@code k8s/misspelt.yaml} shows.
 */
class KustomizeRenderTest {
    @SuppressWarnings("unused") // the parameter source
    static final java.util.List<String> DIRECTORIES = Kustomize.DIRECTORIES;

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void rendersAndParsesStrictly(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);

        assertThat(manifests.all()).as("rendered documents").isNotEmpty();
        Set<String> ids = new HashSet<>();
        for (HasMetadata resource : manifests.all()) {
            assertThat(resource.getMetadata().getName()).as("name of a %s", resource.getKind()).isNotBlank();
            assertThat(ids.add(resource.getKind() + "/" + resource.getMetadata().getName()))
                    .as("%s/%s is unique", resource.getKind(), resource.getMetadata().getName()).isTrue();
            assertThat(resource.getMetadata().getLabels()).as("labels of %s", ids)
                    .containsEntry("app.kubernetes.io/part-of", "gridlimit");
        }
    }

    @Test
    void misspeltFieldsWrongTypesAndUnknownKindsFail() throws IOException {
        String yaml;
        try (InputStream in = getClass().getResourceAsStream("/k8s/misspelt.yaml")) {
            assertThat(in).as("test resource k8s/misspelt.yaml").isNotNull();
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }

        assertThatThrownBy(() -> RenderedManifests.parse("misspelt.yaml", yaml))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("4 document problem(s)")
                .hasMessageContaining("apps/v1 Deployment/typo-deep spec.template.spec.containers[0].readinessProbe"
                        + ".httpGet: [pathh]")
                .hasMessageContaining("v1 Service/typo-top spec: [publishNotReadyAdresses]")
                .hasMessageContaining("apps/v1 Deployment/wrong-type: does not parse: ")
                .hasMessageContaining("autoscaling/v2 HorizontalPodAutoscalar/typo-kind: not a kind the Kubernetes "
                        + "model knows");
    }

    @Test
    void theCorrectlySpeltFieldsOfTheSameDocumentsParse() {
        String fixed = """
                apiVersion: v1
                kind: Service
                metadata:
                  name: typo-top
                spec:
                  clusterIP: None
                  publishNotReadyAddresses: true
                  ports:
                    - port: 5701
                """;

        RenderedManifests parsed = RenderedManifests.parse("fixed", fixed);

        assertThat(parsed.all()).hasSize(1);
        assertThat(UnknownFields.of(parsed.all().get(0))).isEmpty();
    }
}
