package io.gridlimit.micronaut.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code gridlimit.catalog.generation} (docs/SPEC.md §11) is checked at boot like every setting: a value that is
 * not an integer >= 0 stops the boot naming the property and the value (before any grid member starts); a valid one
 * is bound as written.
 */
class CatalogGenerationSettingTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-1|gridlimit.catalog.generation: '-1' is out of range [0, 9223372036854775807]",
        "two|gridlimit.catalog.generation: 'two' is not a whole number",
        "1.5|gridlimit.catalog.generation: '1.5' is not a whole number",
        "9223372036854775808|gridlimit.catalog.generation: '9223372036854775808' is out of range [0, 9223372036854775807]"})
    void aGenerationThatIsNotAnIntegerOfZeroOrMoreStopsTheBoot(String value, String message) {
        assertThatThrownBy(() -> ApplicationContext.run(Map.of("micronaut.application.name", "gl-generation",
                "gridlimit.catalog.generation", value)).close())
                .hasMessageContaining("Invalid GridLimit configuration: ")
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"0", "7", "20260611"})
    void aValidGenerationIsBoundAsWritten(long generation) {
        Map<String, Object> properties = new HashMap<>(Ports.ownMember("gl-generation"));
        properties.put("gridlimit.catalog.generation", Long.toString(generation));
        try (ApplicationContext context = ApplicationContext.run(properties)) {
            assertThat(context.getBean(CatalogProperties.class).generation()).isEqualTo(generation);
            assertThat(context.getBean(PolicyDisagreements.class).generation()).isEqualTo(generation);
        }
    }
}
