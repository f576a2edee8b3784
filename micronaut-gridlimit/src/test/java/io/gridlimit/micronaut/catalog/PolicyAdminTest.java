package io.gridlimit.micronaut.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link PolicyAdmin} (docs/SPEC.md §11), the admin API's view of the catalog in the library's types, on one embedded
 * member seeded from {@code application-gl-catalog.yml}: each answer is the catalog's own, version for version and
 * status for status, and an override's key never shows in what names a policy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyAdminTest {
    private ApplicationContext context;
    private PolicyAdmin admin;
    private PolicyCatalog catalog;

    @BeforeAll
    void start() {
        context = ApplicationContext.run(new HashMap<>(Ports.ownMember("gl-admin")), "gl-catalog");
        admin = context.getBean(PolicySource.class).admin().orElseThrow();
        catalog = context.getBean(PolicyCatalog.class);
    }

    @AfterAll
    void stop() {
        context.close();
    }

    @Test
    void theSeededPoliciesAreTheCatalogsRecordsVersionForVersion() {
        List<PolicyVersion> records = admin.records();

        assertThat(records).extracting(PolicyVersion::name).contains("annot", "free", "gold", "live", "team");
        PolicyRecord gold = catalog.record("gold").orElseThrow();
        PolicyVersion version = admin.record("gold").orElseThrow();
        assertThat(version).isEqualTo(new PolicyVersion("gold", 1, PolicyVersion.Origin.CONFIGURATION,
                gold.changedBy(), Policy.builder("gold").fixedWindow(5, Duration.ofHours(1)).build()));
        assertThat(version.live()).isTrue();
        assertThat(admin.record("nothing")).isEmpty();
        assertThat(admin.maxOverrides()).isEqualTo(100_000);
        assertThat(PolicyAdmin.ANY_VERSION).isEqualTo(PolicyCatalog.ANY_VERSION);
        assertThat(PolicyAdmin.NO_VERSION).isEqualTo(PolicyCatalog.NO_VERSION);
        assertThat(PolicyAdmin.MAX_POLICIES).isEqualTo(10_000);
    }

    @Test
    void putAndDeleteAnswerWithTheirStatusAndVersions() {
        Policy two = Policy.builder("extra").fixedWindow(2, Duration.ofMinutes(1)).build();
        Policy three = Policy.builder("extra").fixedWindow(3, Duration.ofMinutes(1)).build();

        PolicyAdmin.Change created = admin.put(two, PolicyAdmin.NO_VERSION, "alice");
        assertThat(created).isEqualTo(new PolicyAdmin.Change(PolicyAdmin.Status.APPLIED, null,
                new PolicyVersion("extra", 1, PolicyVersion.Origin.API, "alice", two)));
        assertThat(admin.put(three, PolicyAdmin.NO_VERSION, "alice")).as("create only, but it exists")
                .isEqualTo(new PolicyAdmin.Change(PolicyAdmin.Status.CONFLICT, created.after(), created.after()));
        assertThat(admin.put(two, PolicyAdmin.ANY_VERSION, "alice").status()).as("the same policy")
                .isEqualTo(PolicyAdmin.Status.UNCHANGED);

        PolicyAdmin.Change changed = admin.put(three, 1, "bob");
        assertThat(changed).isEqualTo(new PolicyAdmin.Change(PolicyAdmin.Status.APPLIED, created.after(),
                new PolicyVersion("extra", 2, PolicyVersion.Origin.API, "bob", three)));
        assertThat(admin.record("extra")).hasValue(changed.after());

        assertThat(admin.delete("extra", 1, "carol").status()).as("version 2 is current")
                .isEqualTo(PolicyAdmin.Status.CONFLICT);
        PolicyAdmin.Change deleted = admin.delete("extra", PolicyAdmin.ANY_VERSION, "carol");
        PolicyVersion tombstone = new PolicyVersion("extra", 3, PolicyVersion.Origin.API, "carol", null);
        assertThat(deleted).isEqualTo(new PolicyAdmin.Change(PolicyAdmin.Status.APPLIED, changed.after(),
                tombstone));
        assertThat(tombstone.live()).isFalse();
        assertThat(admin.record("extra")).isEmpty();
        assertThat(admin.records()).extracting(PolicyVersion::name).doesNotContain("extra");
        assertThat(admin.delete("extra", PolicyAdmin.ANY_VERSION, "carol"))
                .isEqualTo(new PolicyAdmin.Change(PolicyAdmin.Status.NOT_FOUND, tombstone, tombstone));
        assertThat(admin.delete("never", PolicyAdmin.ANY_VERSION, null))
                .isEqualTo(new PolicyAdmin.Change(PolicyAdmin.Status.NOT_FOUND, null, null));
    }

    @Test
    void overridesAreSetReadListedAndRemovedAgainstTheExpectedTarget() {
        assertThat(admin.putOverride("free", "k|1", "gold", "")).isEqualTo(PolicyAdmin.OverrideStatus.APPLIED);
        assertThat(admin.putOverride("free", "k|1", "team", "")).as("create only, but it exists")
                .isEqualTo(PolicyAdmin.OverrideStatus.CONFLICT);
        assertThat(admin.putOverride("live", "k2", "gold", null)).isEqualTo(PolicyAdmin.OverrideStatus.APPLIED);

        assertThat(admin.readOverride("free", "k|1")).isEqualTo("gold");
        assertThat(admin.overridesOf("free")).isEqualTo(Map.of("k|1", "gold"));
        assertThat(admin.overridesTo("gold")).as("the policies the overrides are under, never their keys")
                .containsExactlyInAnyOrder("free", "live");
        assertThat(admin.overridesTo("team")).isEmpty();

        assertThat(admin.removeOverride("free", "k|1", "team")).isEqualTo(PolicyAdmin.OverrideStatus.CONFLICT);
        assertThat(admin.removeOverride("free", "k|1", "gold")).isEqualTo(PolicyAdmin.OverrideStatus.APPLIED);
        assertThat(admin.removeOverride("free", "k|1", null)).isEqualTo(PolicyAdmin.OverrideStatus.NOT_FOUND);
        assertThat(admin.removeOverride("live", "k2", null)).isEqualTo(PolicyAdmin.OverrideStatus.APPLIED);
        assertThat(admin.readOverride("free", "k|1")).isNull();
        assertThat(admin.overridesTo("gold")).isEmpty();
    }

    @Test
    void withTheCatalogOffThereIsNoAdmin() {
        Map<String, Object> properties = new HashMap<>(Ports.ownMember("gl-admin-off"));
        properties.put("gridlimit.catalog.enabled", "false");
        try (ApplicationContext off = ApplicationContext.run(properties, "gl-catalog")) {
            assertThat(off.getBean(PolicySource.class).admin()).isEmpty();
        }
    }
}
