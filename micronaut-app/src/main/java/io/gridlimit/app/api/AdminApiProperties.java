package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;

/**
 * The raw settings under {@code gridlimit.admin-api} (docs/SPEC.md §11), bound as text like the decision API's and
 * checked by {@link AdminApiSettings}.
 *
 * <pre>
 * gridlimit:
 *   admin-api:
 *     enabled: true     # the service's own configuration turns it on; off unless set
 *     token: ...        # optional: /v1/policies/** then requires Authorization: Bearer &lt;token&gt;
 * </pre>
 */
@ConfigurationProperties(AdminApiProperties.PREFIX)
@Requires(property = ServiceBeans.ENABLED, value = "true")
public class AdminApiProperties {
    /** The prefix of every admin-API property. */
    public static final String PREFIX = "gridlimit.admin-api";

    private String enabled;
    private String token;

    /** @return {@code gridlimit.admin-api.enabled} as written, or null when unset */
    public @Nullable String getEnabled() {
        return enabled;
    }

    /** @param enabled true to serve the admin API on the internal port */
    public void setEnabled(@Nullable String enabled) {
        this.enabled = enabled;
    }

    /** @return {@code gridlimit.admin-api.token} as written, or null when unset */
    public @Nullable String getToken() {
        return token;
    }

    /** @param token the shared secret callers of {@code /v1/policies/**} send as a bearer token */
    public void setToken(@Nullable String token) {
        this.token = token;
    }
}
