package io.gridlimit.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.instance.BuildInfoProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HazelcastVersionTest {
    @ParameterizedTest
    @ValueSource(strings = {"5.7.0", "5.7.1", "5.8.0", "6.0.0", "5.10.0", "5.7.1-SNAPSHOT", "5.8.0-BETA-1",
        " 5.7.0 "})
    void theTestedVersionAndNewerAreAccepted(String found) {
        assertThat(HazelcastVersion.require(found)).isEqualTo(found);
    }

    @ParameterizedTest
    @ValueSource(strings = {"5.3.7", "5.6.9", "4.2.8", "5.7.0-SNAPSHOT", "5.7.0-BETA-1", "5", "5.6.99",
        "", "unknown", "v5.7.0"})
    void olderVersionsAndPreReleasesOfTheTestedOneAreRefused(String found) {
        assertThatThrownBy(() -> HazelcastVersion.require(found)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theMessageNamesTheVersionFoundTheVersionNeededAndTheFix() {
        assertThatThrownBy(() -> HazelcastVersion.require("5.3.7"))
                .hasMessage("GridLimit needs Hazelcast 5.7.0 or newer, but Hazelcast 5.3.7 is on the classpath."
                        + " Under micronaut-parent, set the Maven property <hazelcast.version>5.7.0</hazelcast.version>"
                        + " in your pom (the parent's platform BOM manages Hazelcast, and an imported BOM loses to"
                        + " it); otherwise import io.gridlimit:gridlimit-bom before Micronaut's platform BOM in"
                        + " <dependencyManagement>.");
    }

    @Test
    void comparisonIsNumericPartByPart() {
        assertThat(HazelcastVersion.isAtLeast("5.10.0", "5.9.0")).isTrue();
        assertThat(HazelcastVersion.isAtLeast("5.9.0", "5.10.0")).isFalse();
        assertThat(HazelcastVersion.isAtLeast("5.7", "5.7.0")).isTrue();
        assertThat(HazelcastVersion.isAtLeast("5.7.0-SNAPSHOT", "5.7.0-SNAPSHOT")).isTrue();
        assertThat(HazelcastVersion.isAtLeast("5.7.0-SNAPSHOT", "5.6.0")).isTrue();
    }

    @Test
    void theTestedConstantIsTheHazelcastTheseTestsRunOn() {
        // bumping hazelcast.version in the build without bumping TESTED (or the reverse) fails here
        assertThat(BuildInfoProvider.getBuildInfo().getVersion()).isEqualTo(HazelcastVersion.TESTED);
        assertThat(HazelcastVersion.requireTested()).isEqualTo(HazelcastVersion.TESTED);
    }
}
