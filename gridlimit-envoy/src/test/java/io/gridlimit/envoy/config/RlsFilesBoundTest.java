package io.gridlimit.envoy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.envoy.EnvoyRlsRulesAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the reload check and the boot read of the Envoy service may read (docs/SPEC.md §12, "Reload"): regular files
 * of bounded size only, so that a path turned into a device or a huge file is refused with its name instead of
 * exhausting the heap (an Error that used to end the reload timer); and the override names every domain reserves.
 */
class RlsFilesBoundTest {
    @TempDir
    Path dir;

    @Test
    void aDeviceOrAFileAboveTheBoundIsRefusedBeforeItsBytesAreHeld() throws IOException {
        assertThatThrownBy(() -> RlsFiles.bounded(Path.of("/dev/zero"), 1024)).isInstanceOf(IOException.class)
                .hasMessage("not a regular file");
        Path eleven = Files.writeString(dir.resolve("eleven.yaml"), "01234567890");
        assertThatThrownBy(() -> RlsFiles.bounded(eleven, 10)).isInstanceOf(IOException.class)
                .hasMessage("larger than 10 bytes");
        assertThat(RlsFiles.bounded(eleven, 11)).hasSize(11);
    }

    @Test
    void aConfigurationFileLinkedToADeviceIsRefusedNamingIt() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("zero.yaml"), Path.of("/dev/zero"));
        assertThatThrownBy(() -> RlsConfigReader.read(List.of(link.toString()))).isInstanceOf(RlsConfigException.class)
                .hasMessageContaining("is neither a file nor a directory");
        Path inDirectory = Files.createDirectory(dir.resolve("rules"));
        Files.writeString(inDirectory.resolve("ok.yaml"), "domain: d\ndescriptors:\n  - key: k\n"
                + "    rate_limit: {unit: minute, requests_per_unit: 2}\n");
        assertThat(RlsFiles.digest(List.of(inDirectory.toString()))).hasSize(64);
    }

    @Test
    void everyDomainReservesItsOverrideNamesSoNoRuleOfAnotherDomainTakesThem() throws IOException {
        // domain a's rule b.limit-second would be named a.b.limit-second, domain a.b's override policy of seconds
        Files.writeString(dir.resolve("a.yaml"), "domain: a\ndescriptors:\n  - key: b.limit-second\n"
                + "    rate_limit: {unit: second, requests_per_unit: 2}\n");
        Files.writeString(dir.resolve("ab.yaml"), "domain: a.b\ndescriptors:\n  - key: x\n"
                + "    rate_limit: {unlimited: true}\n");
        RlsConfig config = RlsConfigReader.read(List.of(dir.toString()));
        String rule = config.rules().stream().filter(r -> r.domain().equals("a")).findFirst().orElseThrow()
                .policyName();
        assertThat(rule).isNotEqualTo(RlsConfig.overridePolicyName("a.b", RlsUnit.SECOND))
                .startsWith("a.b.limit-second-").hasSize("a.b.limit-second-".length() + 8);
    }

    @Test
    void aNewSetThatLeavesALimitedDomainWithoutRulesIsSaid() throws IOException {
        Path file = Files.writeString(dir.resolve("d.yaml"), "domain: d\ndescriptors:\n  - key: user\n"
                + "    rate_limit: {unit: minute, requests_per_unit: 1}\n");
        RlsConfig before = RlsConfigReader.read(List.of(file.toString()));
        Files.writeString(file, "domain: d\n"); // a writer stalled after the first line
        RlsConfig after = RlsConfigReader.read(List.of(file.toString()));
        assertThat(EnvoyRlsRulesAccess.unprotected(before, after)).containsExactly("domain 'd' had limited rules and "
                + "has none in configuration " + RlsFiles.shortDigest(after.digest())
                + ": its descriptors are answered OK");
        assertThat(EnvoyRlsRulesAccess.unprotected(before, before)).isEmpty();
    }
}
