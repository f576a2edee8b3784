package io.gridlimit.build;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The versions written in more than one pom agree: the BOM has no parent (so a user's import brings nothing else)
 * and the example is built as a user's service (its parent is Micronaut's), so both restate GridLimit's version and
 * the tested Hazelcast; this test is what keeps them equal to the root pom's.
 */
class BomConsistencyTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theBomAndTheExampleNameTheRootVersionAndTheTestedHazelcast() throws Exception {
        Document root = read("pom.xml");
        String version = child(root.getDocumentElement(), "version");
        String hazelcast = property(root, "hazelcast.version");
        assertThat(hazelcast).isEqualTo("5.7.0");

        Document bom = read("gridlimit-bom/pom.xml");
        assertThat(child(bom.getDocumentElement(), "version")).isEqualTo(version);
        assertThat(property(bom, "gridlimit.version")).isEqualTo(version);
        assertThat(property(bom, "gridlimit.hazelcast.version")).isEqualTo(hazelcast);
        assertThat(bom.getDocumentElement().getElementsByTagName("parent").getLength()).isZero();

        Document example = read("examples/orders-service/pom.xml");
        assertThat(property(example, "hazelcast.version")).isEqualTo(hazelcast);
        NodeList deps = example.getElementsByTagName("dependency");
        String gridlimitVersion = null;
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            if ("gridlimit-micronaut".equals(child(d, "artifactId"))) {
                gridlimitVersion = child(d, "version");
            }
        }
        assertThat(gridlimitVersion).isEqualTo(version);
    }

    private static Document read(String relative) throws Exception {
        Path file = ROOT.resolve(relative);
        assertThat(file).exists();
        try (var in = Files.newInputStream(file)) {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
        }
    }

    private static String property(Document pom, String name) {
        NodeList nodes = pom.getElementsByTagName(name);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().trim();
    }

    private static String child(Element parent, String name) {
        for (var n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        return null;
    }
}
