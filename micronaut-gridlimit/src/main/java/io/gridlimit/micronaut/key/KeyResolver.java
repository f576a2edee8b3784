package io.gridlimit.micronaut.key;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.config.KeySource;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.key.HeaderValueKey;
import io.gridlimit.micronaut.key.KeyPart;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.HexFormat;
import java.util.List;

/**
 * Builds a rule's grid key for a request (SPEC §6): each key source gives one part, the parts are joined with
 * {@code |} in declared order. Parts: {@code ip:<address>} or {@code ip:<network>/<n>} ({@link ClientIpResolver}),
 * {@code hdr:<sha-256 hex of the value's UTF-8 bytes as received>} ({@link HeaderValueKey}; the raw value is never
 * kept), {@code user:<principal name>}, {@code global}, {@code route:<pattern>}. A part can be absent (the rule's
 * {@code on-missing-key} applies) or malformed (always 400). Thread-safe.
 */
@Singleton
public class KeyResolver {
    private final ClientIpResolver clientIp;

    /** @param clientIp the client IP resolver */
    public KeyResolver(ClientIpResolver clientIp) {
        this.clientIp = clientIp;
    }

    /**
     * The outcome of resolving one rule's key.
     *
     * @param key the grid key, or null when a source is missing
     * @param missing what is missing, for the 400 problem (never a value), or null
     * @param malformed true when the key is missing because the request is malformed: rejected with 400 whatever
     *     {@code on-missing-key} says (SPEC §6)
     */
    public record Resolved(String key, String missing, boolean malformed) {
        /**
         * @param key the grid key, or null when a source is absent
         * @param missing what is missing, or null
         */
        public Resolved(String key, String missing) {
            this(key, missing, false);
        }

        /** @return true when the key could be built */
        public boolean present() {
            return key != null;
        }
    }

    /**
     * What one request carries for its key sources, whatever door or record it comes from: the HTTP request, or
     * a line of an access log in the offline replay (issue 24), which knows the remote address and the headers the
     * log format records. Implementations need not be thread-safe; one is used for one request.
     */
    public interface Parts {
        /** @return the {@code client-ip} part ({@link ClientIpResolver#clientKey}), never null */
        KeyPart clientIp();

        /**
         * @param name a header name as configured (case-insensitive, RFC 9110)
         * @return the header's lines in the order received, empty when it is absent, never null
         */
        List<String> header(String name);

        /** @return the authenticated principal's name, or null when there is none */
        @Nullable String principal();
    }

    /**
     * Resolves the key of a rule for a request.
     *
     * @param rule the rule
     * @param request the request
     * @return the key, or what is missing: absent (no header, or blank after trimming; no client address; a key
     *     {@link RateLimiter#checkKey} refuses: longer than {@link RateLimiter#MAX_KEY_BYTES} UTF-8 bytes, or with a
     *     lone surrogate) or malformed (a forwarding header malformed
     *     up to the client, a header value that is not UTF-8); the first source that is not present decides
     */
    public Resolved resolve(RouteRule rule, HttpRequest<?> request) {
        return resolve(rule, new Parts() {
            @Override
            public KeyPart clientIp() {
                return clientIp.clientKey(request);
            }

            @Override
            public List<String> header(String name) {
                return request.getHeaders().getAll(name);
            }

            @Override
            public @Nullable String principal() {
                return request.getUserPrincipal().map(Principal::getName).orElse(null);
            }
        });
    }

    /**
     * Resolves the key of a rule from what a request carries (the one join of SPEC §6 every door and the replay
     * share).
     *
     * @param rule the rule
     * @param parts the request's client part, headers and principal
     * @return as {@link #resolve(RouteRule, HttpRequest)}
     */
    public static Resolved resolve(RouteRule rule, Parts parts) {
        List<KeySource> sources = rule.keys();
        if (sources.size() == 1) {
            // one part is the key as it is: no copy, so a part cached by its source is the same key each request
            KeyPart part = part(sources.get(0), rule, parts);
            if (!part.isPresent()) {
                return new Resolved(null, part.missing(), part.status() == KeyPart.Status.MALFORMED);
            }
            return checked(rule, part.value());
        }
        StringBuilder key = new StringBuilder();
        for (KeySource source : sources) {
            KeyPart part = part(source, rule, parts);
            if (!part.isPresent()) {
                return new Resolved(null, part.missing(), part.status() == KeyPart.Status.MALFORMED);
            }
            if (key.length() > 0) {
                key.append('|');
            }
            key.append(part.value());
        }
        return checked(rule, key.toString());
    }

    private static Resolved checked(RouteRule rule, String k) {
        try {
            return new Resolved(RateLimiter.checkKey(k), null);
        } catch (IllegalArgumentException e) { // the message names the problem and the size, never the key
            return new Resolved(null, "a usable rate-limit key: the key built from "
                    + String.join(", ", rule.keys().stream().map(KeySource::describe).toList()) + " is invalid ("
                    + e.getMessage() + ")");
        }
    }

    private static KeyPart part(KeySource source, RouteRule rule, Parts parts) {
        return switch (source.kind()) {
            case CLIENT_IP -> parts.clientIp();
            case HEADER -> HeaderValueKey.part(source.headerName(), parts.header(source.headerName()));
            case PRINCIPAL -> {
                String n = parts.principal() == null ? "" : parts.principal().trim();
                yield n.isEmpty() ? KeyPart.absent("an authenticated principal") : KeyPart.present("user:" + n);
            }
            case GLOBAL -> KeyPart.present("global");
            case ROUTE -> KeyPart.present("route:" + rule.pattern());
        };
    }

    /** Per-process secret of {@link #logHash(String)}: hashes of keys cannot be reversed by guessing keys. */
    private static final byte[] LOG_HASH_SECRET = new java.security.SecureRandom().generateSeed(32);

    /**
     * A short, keyed hash of a key for log lines: the first 12 hex digits of HMAC-SHA256 under a random secret
     * drawn when this process starts. Equal keys give equal hashes within one process (so one client's denials
     * can be followed in a replica's log), but unlike a plain hash it cannot be reversed by hashing candidate keys
     * (IPv4 has only 2^32), and hashes differ between replicas and restarts.
     *
     * @param key a grid key
     * @return 12 lower-case hex digits
     */
    public static String logHash(String key) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(LOG_HASH_SECRET, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(key.getBytes(StandardCharsets.UTF_8))).substring(0, 12);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /**
     * SHA-256 of a string's UTF-8 bytes: the hash in a {@code hdr:} key part of that text.
     *
     * @param value any string
     * @return 64 lower-case hex digits
     */
    public static String sha256Hex(String value) {
        return HeaderValueKey.sha256Hex(value.getBytes(StandardCharsets.UTF_8));
    }
}
