package io.gridlimit.micronaut.key;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link NodeSyntax#dottedQuad}, the fast path of an IPv4 literal, reads exactly what the general parser reads:
 * the same address for every string it accepts, and nothing the general parser would read as IPv4 differently.
 */
class DottedQuadTest {
    @Test
    void readsWhatTheGeneralParserReadsOnHandPickedStrings() {
        String[] accepted = {"0.0.0.0", "10.0.0.1", "255.255.255.255", "192.0.2.43", "1.22.133.4", "9.99.199.250"};
        for (String s : accepted) {
            assertThat(NodeSyntax.dottedQuad(s)).as(s).isNotNull().isEqualTo(NodeSyntax.parsed(s));
            assertThat(NodeSyntax.dottedQuad(s).toCanonicalString()).isEqualTo(s);
        }
        String[] refused = {"256.0.0.1", "01.2.3.4", "1.2.3.04", "1.2.3", "1.2.3.4.5", "1..2.3", ".1.2.3",
            "1.2.3.4.", "1.2.3.1000", "1234.1.1.1", "", "1.2.3.a", "-1.2.3.4", "00.0.0.0", "1.2.3.4 "};
        for (String s : refused) {
            assertThat(NodeSyntax.dottedQuad(s)).as(s).isNull();
        }
    }

    @Test
    void agreesWithTheGeneralParserOnRandomStringsOfDigitsAndDots() {
        SplittableRandom random = new SplittableRandom(22);
        String alphabet = "0123456789.";
        int accepted = 0;
        for (int n = 0; n < 200_000; n++) {
            StringBuilder b = new StringBuilder();
            int length = 7 + random.nextInt(9);
            for (int i = 0; i < length; i++) {
                // dots a quarter of the time, so that four short octets come up often
                b.append(random.nextInt(4) == 0 ? '.' : alphabet.charAt(random.nextInt(10)));
            }
            String s = b.toString();
            var fast = NodeSyntax.dottedQuad(s);
            var general = NodeSyntax.parsed(s);
            if (fast != null) {
                accepted++;
                assertThat(fast).as(s).isEqualTo(general);
            } else {
                assertThat(general == null || !general.isIPv4()).as(s).isTrue();
            }
        }
        assertThat(accepted).as("the random strings reach the fast path").isGreaterThan(1000);
    }
}
