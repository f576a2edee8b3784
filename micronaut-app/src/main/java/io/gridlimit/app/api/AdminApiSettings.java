package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.exceptions.ConfigurationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The checked {@code gridlimit.admin-api.*} values (docs/SPEC.md §11), created at startup so that a bad value stops
 * the boot naming the property (never a token's value).
 * <ul>
 *   <li>{@code gridlimit.admin-api.enabled}: {@code true} or {@code false} (default false; the service's
 *       application.yml sets true). When false, {@code /v1/policies/**} does not exist (404).</li>
 *   <li>{@code gridlimit.admin-api.token}: optional shared secret of the decision API token's syntax; when set,
 *       every {@code /v1/policies/**} request must carry {@code Authorization: Bearer <token>}. Unset, the decision
 *       API's token (when set) guards the admin API too, so an internal port an operator protected stays protected;
 *       with neither, the admin API is open to whoever reaches the internal port (loopback by default).</li>
 * </ul>
 * Immutable and thread-safe.
 */
@Context
@Requires(property = ServiceBeans.ENABLED, value = "true")
public class AdminApiSettings {
    /** {@code gridlimit.admin-api.enabled}. */
    public static final String ENABLED_PROPERTY = AdminApiProperties.PREFIX + ".enabled";
    /** {@code gridlimit.admin-api.token}. */
    public static final String TOKEN_PROPERTY = AdminApiProperties.PREFIX + ".token";
    /**
     * The admin API's path ({@code io.gridlimit.app.admin}'s controllers), here beside its token so that the
     * internal port's token filter ({@link DecisionApiTokenFilter}) knows which token a path takes without reaching
     * into the admin package.
     */
    public static final String PATH = "/v1/policies";

    private final boolean enabled;
    private final byte[] token;

    /**
     * @param properties the raw settings
     * @param decisionApi the decision API's checked settings (its token guards the admin API when it has none)
     * @throws ConfigurationException naming every bad property
     */
    public AdminApiSettings(AdminApiProperties properties, DecisionApiSettings decisionApi) {
        List<String> errors = new ArrayList<>();
        String e = properties.getEnabled() == null ? "false" : properties.getEnabled().trim();
        if (!e.equalsIgnoreCase("true") && !e.equalsIgnoreCase("false")) {
            errors.add(ENABLED_PROPERTY + ": '" + properties.getEnabled() + "' is not true or false");
        }
        this.enabled = e.equalsIgnoreCase("true");
        byte[] own = DecisionApiSettings.token(TOKEN_PROPERTY, properties.getToken(), errors);
        this.token = own != null ? own : decisionApi.token().orElse(null);
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
    }

    /** @return whether the admin API is served */
    public boolean enabled() {
        return enabled;
    }

    /** @return the bearer token {@code /v1/policies/**} requires (its own, else the decision API's), or empty */
    public Optional<byte[]> token() {
        return Optional.ofNullable(token).map(byte[]::clone);
    }
}
