package io.gridlimit.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's own configuration file replays as it is: the settings of the service and of its Envoy door, which
 * the replay does not run, are left out and named; the library's settings are still checked as the service checks
 * them (found by a new user, who replayed micronaut-app's application.yml and was refused).
 */
class ServiceSettingsTest {
    @TempDir
    Path dir;

    @Test
    void theServicesAndEnvoysSettingsAreLeftOutAndNamedAndTheLibrarysAreStillChecked() throws Exception {
        Path yml = Files.writeString(dir.resolve("application.yml"), """
                gridlimit:
                  service:
                    enabled: true
                  decision-api:
                    timeout: 20ms
                  admin-api:
                    enabled: false
                  envoy-rls:
                    enabled: false
                  policies:
                    api: {algorithm: fixed-window, limit: 3, window: 1m}
                  routes:
                    - {pattern: /api/**, policy: api, key: client-ip}
                """);
        try (ReplayConfig.Loaded loaded = ReplayConfig.load(yml)) {
            assertThat(loaded.ignored()).containsExactly("gridlimit.service.enabled", "gridlimit.decision-api.timeout",
                    "gridlimit.admin-api.enabled", "gridlimit.envoy-rls.enabled");
            assertThat(loaded.config().routes()).hasSize(1);
        }
        Path misspelt = Files.writeString(dir.resolve("bad.yml"), """
                gridlimit:
                  admin-api:
                    enabled: false
                  policies:
                    api: {algorithm: fixed-window, limt: 3, window: 1m}
                """);
        assertThatThrownBy(() -> ReplayConfig.load(misspelt).close())
                .hasMessageContaining("gridlimit.policies.api.limt: unknown property");
    }
}
