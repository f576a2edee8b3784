package io.gridlimit.envoy;

import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsConfigReader;
import io.gridlimit.micronaut.config.CheckedValues;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.convert.ConversionService;

import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Envoy rate limit service's checked settings ({@link EnvoyRlsProperties}) and its rules, read when the context
 * starts ({@link Context}) so that a bad value or a refused envoyproxy/ratelimit file stops the boot before any
 * port opens, with one message naming every property, file, domain and descriptor (docs/SPEC.md §12). Exists only
 * when {@value #ENABLED_PROPERTY} is {@code true}, in any case ({@link EnvoyRlsEnabled}); another value than
 * {@code true} or {@code false} stops the boot naming it. Immutable.
 *
 * <ul>
 *   <li>{@code gridlimit.envoy-rls.port}: the gRPC port, an integer in [1, 65535], default {@value #DEFAULT_PORT}
 *       (envoyproxy/ratelimit's own 8081 is GridLimit's internal port); it must differ from
 *       {@code micronaut.server.port} and {@code gridlimit.decision-api.port}, set or default (8080 outside tests;
 *       8081 where {@code gridlimit.service.enabled}).</li>
 *   <li>{@code gridlimit.envoy-rls.host}: the IP literal it binds, default {@value #DEFAULT_HOST}, under the decision
 *       API host's rules ({@link CheckedValues#bindAddress}).</li>
 *   <li>{@code gridlimit.envoy-rls.config-files}: the envoyproxy/ratelimit YAML files, or directories of them
 *       ({@link RlsConfigReader}); required.</li>
 *   <li>{@code gridlimit.envoy-rls.reload-interval}: how often {@link EnvoyRlsRules} checks the files for a new
 *       set, default 1 s, in [{@value #MIN_RELOAD_MILLIS} ms, {@value #MAX_RELOAD_MILLIS} ms], or {@code 0} to
 *       turn reloading off (Micronaut's duration syntax).</li>
 *   <li>{@code gridlimit.envoy-rls.tls.certificate-file} and {@code .private-key-file}: PEM files, both or neither;
 *       with them the port serves TLS only ({@link RlsTls}), read again when they change.</li>
 *   <li>{@value #MERGE_PROPERTY}: {@code true} merges files naming one domain (their top-level descriptors; one of
 *       the same key and value in two files is refused); default false; when unset, envoyproxy/ratelimit's
 *       environment variable {@value #MERGE_ENVIRONMENT} is read ({@code true} or {@code false}, any case).</li>
 *   <li>{@code gridlimit.envoy-rls.compatibility}, {@code .shadow-mode} and {@code .response-headers.*}: how the
 *       service counts and answers, with envoyproxy/ratelimit's environment variables as aliases
 *       ({@link RlsCompatibility}).</li>
 * </ul>
 */
@Context
@Requires(condition = EnvoyRlsEnabled.class)
public class EnvoyRlsSettings {
    /** Turns the service on ({@code true} or {@code false}, any case); off by default. */
    public static final String ENABLED_PROPERTY = EnvoyRlsProperties.PREFIX + ".enabled";
    /** Property path of the gRPC port. */
    public static final String PORT_PROPERTY = EnvoyRlsProperties.PREFIX + ".port";
    /** Property path of the bind address. */
    public static final String HOST_PROPERTY = EnvoyRlsProperties.PREFIX + ".host";
    /** Merges files naming one domain ({@code true} or {@code false}, any case); off by default. */
    public static final String MERGE_PROPERTY = EnvoyRlsProperties.PREFIX + ".merge-domain-config";
    /** envoyproxy/ratelimit's environment variable for {@value #MERGE_PROPERTY}, read when the property is unset. */
    public static final String MERGE_ENVIRONMENT = "MERGE_DOMAIN_CONFIG";
    /** Default gRPC port. */
    public static final int DEFAULT_PORT = 8083;
    /** Default bind address: loopback only. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Property path of the reload check's interval. */
    public static final String RELOAD_INTERVAL_PROPERTY = EnvoyRlsProperties.PREFIX + ".reload-interval";
    /** Default interval of the reload check. */
    public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(1);
    /** Shortest reload interval but 0, in milliseconds. */
    public static final long MIN_RELOAD_MILLIS = 100;
    /** Longest reload interval, in milliseconds (1 min). */
    public static final long MAX_RELOAD_MILLIS = 60_000;


    private static final Logger LOG = LoggerFactory.getLogger(EnvoyRlsSettings.class);

    private final int port;
    private final String host;
    private final Duration reloadInterval;
    private final List<String> configFiles;
    private final @Nullable RlsTls tls;
    private final RlsConfig rules;
    private final boolean merge;
    private final RlsCompatibility compatibility;

    /**
     * @param properties the raw {@code gridlimit.envoy-rls.*} values
     * @param context for the other ports this one must not take
     * @throws ConfigurationException naming every bad property and value, file, domain and descriptor
     */
    public EnvoyRlsSettings(EnvoyRlsProperties properties, ApplicationContext context) {
        List<String> errors = new ArrayList<>();
        this.port = CheckedValues.port(PORT_PROPERTY, properties.getPort(), DEFAULT_PORT, errors);
        this.host = CheckedValues.bindAddress(HOST_PROPERTY, properties.getHost(), DEFAULT_HOST, errors);
        boolean service = context.getProperty("gridlimit.service.enabled", Boolean.class).orElse(false);
        boolean test = context.getEnvironment().getActiveNames().contains(Environment.TEST);
        for (String other : List.of("micronaut.server.port", "gridlimit.decision-api.port")) {
            // the ports the service opens by default: 8080 (outside tests) and, in the service, 8081
            Optional<Integer> taken = context.getProperty(other, Integer.class)
                    .or(() -> other.startsWith("micronaut") ? (test ? Optional.empty() : Optional.of(8080))
                            : service ? Optional.of(8081) : Optional.empty());
            if (taken.isPresent() && taken.get() == port) {
                errors.add(PORT_PROPERTY + ": '" + port + "' is also " + other + "; the gRPC service needs a port of "
                        + "its own");
            }
        }
        this.reloadInterval = reloadInterval(properties.getReloadInterval(), errors);
        this.tls = tls(properties.getTls(), errors);
        // the property, else the environment variable as Micronaut's environment source shows MERGE_DOMAIN_CONFIG;
        // read as written and trimmed (a typed Boolean binds " true " as false), true or false in any case
        String mergeText = context.getProperty(MERGE_PROPERTY, String.class).orElse(null);
        String where = MERGE_PROPERTY;
        if (mergeText == null) {
            mergeText = context.getProperty("merge.domain.config", String.class).orElse("false");
            where = MERGE_ENVIRONMENT + " (alias of " + MERGE_PROPERTY + ")";
        }
        if (!mergeText.trim().matches("(?i)true|false")) {
            errors.add(where + ": '" + mergeText + "' is not true or false");
        }
        this.merge = mergeText.trim().equalsIgnoreCase("true");
        this.compatibility = RlsCompatibility.read(context, errors);
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
        List<String> files = properties.getConfigFiles();
        this.configFiles = files == null ? List.of() : List.copyOf(files);
        this.rules = compatibility.readRules(configFiles, merge);
        if (compatibility.globalShadow()) {
            LOG.warn("Envoy rate limit service: {} is true: every OVER_LIMIT call is answered OK (counted {})",
                    RlsCompatibility.SHADOW_PROPERTY, RlsCompatibility.GLOBAL_SHADOW);
        }
        // loaded as envoyproxy/ratelimit reads them, but a route may be less protected than it seems: say so
        rules.warnings().forEach(w -> LOG.warn("Envoy configuration: {}", w));
    }

    /** @return the gRPC port, in [1, 65535] */
    public int port() {
        return port;
    }

    /** @return the IP literal the gRPC port binds, never null */
    public String host() {
        return host;
    }

    /** @return whether the gRPC port binds a loopback address only */
    public boolean loopbackOnly() {
        return CheckedValues.isLoopback(host);
    }

    /** @return how the service counts and answers ({@link RlsCompatibility}), never null */
    public RlsCompatibility compatibility() {
        return compatibility;
    }

    /** @return whether files naming one domain were merged into it ({@value #MERGE_PROPERTY}) */
    public boolean mergeDomainConfig() {
        return merge;
    }

    /**
     * @return the domains and rules read from the configuration files at boot; the set in force after a reload is
     *     {@link EnvoyRlsRules#current()}
     */
    public RlsConfig rules() {
        return rules;
    }

    /** @return {@code gridlimit.envoy-rls.config-files} as configured, unmodifiable (read again on each check) */
    public List<String> configFiles() {
        return configFiles;
    }

    /**
     * @return how often the configuration files are checked for a new set: {@link Duration#ZERO} when reloading is
     *     off, else in [{@value #MIN_RELOAD_MILLIS} ms, {@value #MAX_RELOAD_MILLIS} ms]
     */
    public Duration reloadInterval() {
        return reloadInterval;
    }

    /**
     * @return the port's TLS (certificate chain and key, checked at boot), or null when the port is plaintext
     */
    @Nullable RlsTls tls() {
        return tls;
    }

    /**
     * @param raw {@code gridlimit.envoy-rls.tls.*} as written
     * @param errors receives each problem, naming the property and the file
     * @return the checked TLS, or null when neither file is set (plaintext) or a problem was recorded
     */
    private static @Nullable RlsTls tls(EnvoyRlsProperties.Tls raw, List<String> errors) {
        String cert = raw.getCertificateFile();
        String key = raw.getPrivateKeyFile();
        boolean hasCert = cert != null && !cert.isBlank();
        boolean hasKey = key != null && !key.isBlank();
        if (!hasCert && !hasKey) {
            return null;
        }
        if (hasCert != hasKey) {
            errors.add((hasCert ? RlsTls.CERTIFICATE_PROPERTY : RlsTls.PRIVATE_KEY_PROPERTY) + " is set but "
                    + (hasCert ? RlsTls.PRIVATE_KEY_PROPERTY : RlsTls.CERTIFICATE_PROPERTY) + " is not; set both "
                    + "(PEM files) for TLS, or neither for plaintext");
            return null;
        }
        Path certFile = Path.of(cert.trim());
        Path keyFile = Path.of(key.trim());
        RlsTls.Identity boot = RlsTls.load(certFile, keyFile, errors);
        return boot == null ? null : new RlsTls(certFile, keyFile, boot);
    }

    /**
     * @param text {@code gridlimit.envoy-rls.reload-interval} as written, or null (the default, 1 s)
     * @param errors receives {@code <property>: '<text>' is …} when malformed or out of range
     * @return the interval, {@link Duration#ZERO} for off; the default when refused (boot stops anyway)
     */
    private static Duration reloadInterval(@Nullable String text, List<String> errors) {
        if (text == null || text.isBlank()) {
            return DEFAULT_RELOAD_INTERVAL;
        }
        Duration d = text.trim().equals("0") ? Duration.ZERO
                : ConversionService.SHARED.convert(text.trim(), Duration.class).orElse(null);
        if (d != null && d.isZero()) {
            return Duration.ZERO;
        }
        if (d == null || d.isNegative() || d.toMillis() < MIN_RELOAD_MILLIS || d.compareTo(
                Duration.ofMillis(MAX_RELOAD_MILLIS)) > 0) {
            errors.add(RELOAD_INTERVAL_PROPERTY + ": '" + text + "' is " + (d == null
                    ? "not a duration (write e.g. 100ms, 1s or 1m)" : "outside [100ms, 1m]")
                    + "; write 0 to turn reloading off");
            return DEFAULT_RELOAD_INTERVAL;
        }
        return d;
    }
}
