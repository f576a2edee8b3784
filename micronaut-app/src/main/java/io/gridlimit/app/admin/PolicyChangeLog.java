package io.gridlimit.app.admin;

import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.catalog.PolicyVersion;
import io.gridlimit.micronaut.key.KeyResolver;
import io.gridlimit.micronaut.metrics.CatalogMetrics;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.Principal;
import java.util.Optional;

/**
 * The record of every change made through the admin API (docs/SPEC.md §11): one INFO line each (what, the old and
 * new version or target, the caller; a key only by its log hash, {@link KeyResolver#logHash}) under
 * {@link PolicyAdminController}'s logger, as the admin API always has, and one count in
 * {@code gridlimit_policy_changes_total{policy,change}} ({@link CatalogMetrics#change}: {@code created},
 * {@code updated}, {@code deleted}, {@code override_set}, {@code override_removed}). Thread-safe.
 */
final class PolicyChangeLog {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyAdminController.class);

    private final CatalogMetrics metrics;

    /** @param metrics counts the changes */
    PolicyChangeLog(CatalogMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * Who made a change, for the log: the authenticated principal, else the admin token's holder or an
     * unauthenticated caller, with the peer's address.
     *
     * @param request the request
     * @return the caller as logged and recorded in the catalog ({@code changed-by})
     */
    static String caller(HttpRequest<?> request) {
        Optional<Principal> principal = request.getUserPrincipal();
        if (principal.isPresent()) {
            return "'" + principal.get().getName() + "'";
        }
        boolean bearer = request.getHeaders().getAll(HttpHeaders.AUTHORIZATION).size() == 1;
        String peer = request.getRemoteAddress() == null || request.getRemoteAddress().getAddress() == null ? "?"
                : request.getRemoteAddress().getAddress().getHostAddress();
        return (bearer ? "the admin token's holder" : "an unauthenticated caller") + " from " + peer;
    }

    /**
     * A policy created or replaced.
     *
     * @param name the policy name
     * @param created whether it was created (or re-created after a deletion)
     * @param before its version before, or null when there was none
     * @param after its version now
     * @param caller who made the change ({@link #caller})
     * @param policy the policy written
     */
    void policyPut(String name, boolean created, @Nullable PolicyVersion before, PolicyVersion after, String caller,
                   Policy policy) {
        LOG.info("policy '{}' {} through the admin API: version {} -> {} by {}: {}", name,
                created ? "created" : "changed", before == null ? "none" : before.version(),
                after.version(), caller, policy);
        metrics.change(name, created ? "created" : "updated");
    }

    /**
     * A policy deleted.
     *
     * @param name the policy name
     * @param before its version before
     * @param after its deletion's version (a tombstone)
     * @param caller who made the change ({@link #caller})
     */
    void policyDeleted(String name, PolicyVersion before, PolicyVersion after, String caller) {
        LOG.info("policy '{}' deleted through the admin API: version {} -> {} by {}", name,
                before.version(), after.version(), caller);
        metrics.change(name, "deleted");
    }

    /**
     * A key's override set.
     *
     * @param name the policy a rule names
     * @param key the grid key, logged by its hash only
     * @param before the policy the override named before, or null when there was none
     * @param target the policy it names now
     * @param caller who made the change ({@link #caller})
     */
    void overrideSet(String name, String key, @Nullable String before, String target, String caller) {
        LOG.info("override under policy '{}' for key #{} set through the admin API: {} -> {} by {}", name,
                KeyResolver.logHash(key), before == null ? "none" : before, target, caller);
        metrics.change(name, "override_set");
    }

    /**
     * A key's override removed.
     *
     * @param name the policy a rule names
     * @param key the grid key, logged by its hash only
     * @param caller who made the change ({@link #caller})
     */
    void overrideRemoved(String name, String key, String caller) {
        LOG.info("override under policy '{}' for key #{} removed through the admin API by {}", name,
                KeyResolver.logHash(key), caller);
        metrics.change(name, "override_removed");
    }
}
