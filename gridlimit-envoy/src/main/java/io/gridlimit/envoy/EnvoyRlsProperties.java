package io.gridlimit.envoy;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * The raw settings under {@code gridlimit.envoy-rls}, bound by Micronaut (YAML, environment variables such as
 * {@code GRIDLIMIT_ENVOY_RLS_ENABLED}, system properties). Bound as text on purpose: {@link EnvoyRlsSettings} checks
 * each value and stops the boot naming the property and the value. Read the checked values from
 * {@link EnvoyRlsSettings}, never from this class.
 *
 * <pre>
 * gridlimit:
 *   envoy-rls:
 *     enabled: true          # off by default
 *     port: 8083             # the gRPC port Envoy calls
 *     host: 127.0.0.1        # the address it binds; 0.0.0.0 only behind a network policy
 *     config-files:          # envoyproxy/ratelimit YAML files, or directories of them
 *       - /etc/gridlimit/ratelimit
 *     reload-interval: 1s    # how often the files are checked for changes; 0 turns reloading off
 *     merge-domain-config: false  # or MERGE_DOMAIN_CONFIG=true: one domain over several files
 *     compatibility: gridlimit    # or reference: envoyproxy/ratelimit's counting and answers
 *     shadow-mode: false          # or SHADOW_MODE=true: every OVER_LIMIT answered OK
 *     near-limit-ratio: 0.8       # or NEAR_LIMIT_RATIO: near_limit in the reference's stats
 *     response-headers:           # compatibility: reference only (LIMIT_RESPONSE_HEADERS_ENABLED, …)
 *       enabled: false
 *       limit-header: RateLimit-Limit
 *       remaining-header: RateLimit-Remaining
 *       reset-header: RateLimit-Reset
 *     tls:                   # optional: both or neither (PEM)
 *       certificate-file: /etc/gridlimit/tls/tls.crt
 *       private-key-file: /etc/gridlimit/tls/tls.key
 * </pre>
 */
@ConfigurationProperties(EnvoyRlsProperties.PREFIX)
public class EnvoyRlsProperties {
    /** The prefix of every property of the Envoy rate limit service. */
    public static final String PREFIX = "gridlimit.envoy-rls";

    private Boolean enabled;
    private String port;
    private String host;
    private List<String> configFiles;
    private String reloadInterval;
    private Tls tls = new Tls();
    private Boolean mergeDomainConfig;
    private String compatibility;
    private String shadowMode;
    private String nearLimitRatio;

    /** @return {@code gridlimit.envoy-rls.near-limit-ratio} as written, or null (checked by {@link RlsCompatibility}) */
    public @Nullable String getNearLimitRatio() {
        return nearLimitRatio;
    }

    /** @param nearLimitRatio the near-limit share of a limit, in [0, 1] */
    public void setNearLimitRatio(@Nullable String nearLimitRatio) {
        this.nearLimitRatio = nearLimitRatio;
    }
    private ResponseHeaders responseHeaders = new ResponseHeaders();

    /** @return {@code gridlimit.envoy-rls.compatibility} as written, or null (checked by {@link RlsCompatibility}) */
    public @Nullable String getCompatibility() {
        return compatibility;
    }

    /** @param compatibility {@code gridlimit} or {@code reference} */
    public void setCompatibility(@Nullable String compatibility) {
        this.compatibility = compatibility;
    }

    /** @return {@code gridlimit.envoy-rls.shadow-mode} as written, or null (checked by {@link RlsCompatibility}) */
    public @Nullable String getShadowMode() {
        return shadowMode;
    }

    /** @param shadowMode whether every OVER_LIMIT call is answered OK */
    public void setShadowMode(@Nullable String shadowMode) {
        this.shadowMode = shadowMode;
    }

    /** @return {@code gridlimit.envoy-rls.response-headers}, never null */
    public ResponseHeaders getResponseHeaders() {
        return responseHeaders;
    }

    /** @param responseHeaders {@code gridlimit.envoy-rls.response-headers} */
    public void setResponseHeaders(@Nullable ResponseHeaders responseHeaders) {
        this.responseHeaders = responseHeaders == null ? new ResponseHeaders() : responseHeaders;
    }

    /**
     * Typed so that the startup property check refuses anything but {@code true} or {@code false} (any case).
     *
     * @return {@code gridlimit.envoy-rls.merge-domain-config}, or null when unset (then the environment variable
     *     {@code MERGE_DOMAIN_CONFIG}, else false)
     */
    public @Nullable Boolean getMergeDomainConfig() {
        return mergeDomainConfig;
    }

    /** @param mergeDomainConfig whether files naming one domain are merged into it */
    public void setMergeDomainConfig(@Nullable Boolean mergeDomainConfig) {
        this.mergeDomainConfig = mergeDomainConfig;
    }

    /**
     * Typed so that the startup property check refuses anything but {@code true} or {@code false} (any case); the
     * beans themselves are switched by {@link EnvoyRlsEnabled}.
     *
     * @return {@code gridlimit.envoy-rls.enabled}, or null when unset (off)
     */
    public @Nullable Boolean getEnabled() {
        return enabled;
    }

    /** @param enabled whether the gRPC service runs */
    public void setEnabled(@Nullable Boolean enabled) {
        this.enabled = enabled;
    }

    /** @return {@code gridlimit.envoy-rls.port} as written, or null when unset */
    public @Nullable String getPort() {
        return port;
    }

    /** @param port the gRPC port, in [1, 65535] */
    public void setPort(@Nullable String port) {
        this.port = port;
    }

    /** @return {@code gridlimit.envoy-rls.host} as written, or null when unset */
    public @Nullable String getHost() {
        return host;
    }

    /** @param host the IP address the gRPC port binds */
    public void setHost(@Nullable String host) {
        this.host = host;
    }

    /** @return {@code gridlimit.envoy-rls.config-files} as written, or null when unset */
    public @Nullable List<String> getConfigFiles() {
        return configFiles;
    }

    /** @param configFiles envoyproxy/ratelimit configuration files or directories */
    public void setConfigFiles(@Nullable List<String> configFiles) {
        this.configFiles = configFiles;
    }

    /** @return {@code gridlimit.envoy-rls.reload-interval} as written, or null when unset */
    public @Nullable String getReloadInterval() {
        return reloadInterval;
    }

    /** @param reloadInterval how often the configuration files are checked: 0, or in [100ms, 1m] */
    public void setReloadInterval(@Nullable String reloadInterval) {
        this.reloadInterval = reloadInterval;
    }

    /** @return {@code gridlimit.envoy-rls.tls}, never null (its files unset when TLS is off) */
    public Tls getTls() {
        return tls;
    }

    /** @param tls {@code gridlimit.envoy-rls.tls} */
    public void setTls(@Nullable Tls tls) {
        this.tls = tls == null ? new Tls() : tls;
    }

    /** {@code gridlimit.envoy-rls.tls}: the PEM files of the port's certificate chain and key, both or neither. */
    @ConfigurationProperties("tls")
    public static class Tls {
        private String certificateFile;
        private String privateKeyFile;

        /** @return {@code gridlimit.envoy-rls.tls.certificate-file} as written, or null when unset */
        public @Nullable String getCertificateFile() {
            return certificateFile;
        }

        /** @param certificateFile the PEM file of the certificate chain, the server's own certificate first */
        public void setCertificateFile(@Nullable String certificateFile) {
            this.certificateFile = certificateFile;
        }

        /** @return {@code gridlimit.envoy-rls.tls.private-key-file} as written, or null when unset */
        public @Nullable String getPrivateKeyFile() {
            return privateKeyFile;
        }

        /** @param privateKeyFile the PEM file of the private key (PKCS #8) */
        public void setPrivateKeyFile(@Nullable String privateKeyFile) {
            this.privateKeyFile = privateKeyFile;
        }
    }

    /**
     * {@code gridlimit.envoy-rls.response-headers}: envoyproxy/ratelimit's optional headers, as written (checked by
     * {@link RlsCompatibility}, which also reads their environment aliases).
     */
    @ConfigurationProperties("response-headers")
    public static class ResponseHeaders {
        private String enabled;
        private String limitHeader;
        private String remainingHeader;
        private String resetHeader;

        /** @return {@code .enabled} as written, or null */
        public @Nullable String getEnabled() {
            return enabled;
        }

        /** @param enabled whether the three headers are added */
        public void setEnabled(@Nullable String enabled) {
            this.enabled = enabled;
        }

        /** @return {@code .limit-header} as written, or null */
        public @Nullable String getLimitHeader() {
            return limitHeader;
        }

        /** @param limitHeader the limit header's name */
        public void setLimitHeader(@Nullable String limitHeader) {
            this.limitHeader = limitHeader;
        }

        /** @return {@code .remaining-header} as written, or null */
        public @Nullable String getRemainingHeader() {
            return remainingHeader;
        }

        /** @param remainingHeader the remaining header's name */
        public void setRemainingHeader(@Nullable String remainingHeader) {
            this.remainingHeader = remainingHeader;
        }

        /** @return {@code .reset-header} as written, or null */
        public @Nullable String getResetHeader() {
            return resetHeader;
        }

        /** @param resetHeader the reset header's name */
        public void setResetHeader(@Nullable String resetHeader) {
            this.resetHeader = resetHeader;
        }
    }
}
