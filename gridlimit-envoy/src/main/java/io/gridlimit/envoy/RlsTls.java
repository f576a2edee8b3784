package io.gridlimit.envoy;

import io.gridlimit.envoy.config.RlsFiles;

import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.CertificateUtils;
import io.micronaut.core.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;

/**
 * TLS on the RLS port (docs/SPEC.md §12, "TLS"): the server's certificate chain and private key from two PEM files
 * ({@value #CERTIFICATE_PROPERTY}, {@value #PRIVATE_KEY_PROPERTY}), read and checked at boot by
 * {@link #load}, served through grpc-java's {@link AdvancedTlsX509KeyManager}, which each new connection's
 * handshake asks, so that {@link #check()} can put a new pair in force without touching open connections. A pair is
 * judged when two checks in a row see the same bytes (never a pair caught half-written); a refused pair is logged at
 * WARN with the boot's message and the pair in force stays. Thread-safe ({@link #check()} is synchronized).
 */
final class RlsTls {
    /** Largest certificate or key file read: 1 MiB (a chain is kilobytes). */
    static final long MAX_PEM_BYTES = 1L << 20;
    /** Property path of the certificate chain's PEM file. */
    static final String CERTIFICATE_PROPERTY = EnvoyRlsProperties.PREFIX + ".tls.certificate-file";
    /** Property path of the private key's PEM file. */
    static final String PRIVATE_KEY_PROPERTY = EnvoyRlsProperties.PREFIX + ".tls.private-key-file";

    private static final Logger LOG = LoggerFactory.getLogger(RlsTls.class);

    /**
     * A checked pair.
     *
     * @param chain the certificate chain, the server's own first, at least one
     * @param key its private key
     * @param bytes the two files' bytes as read, certificate then key, to see a change
     */
    record Identity(X509Certificate[] chain, PrivateKey key, List<byte[]> bytes) {
    }

    private final Path certificateFile;
    private final Path keyFile;
    private final AdvancedTlsX509KeyManager keyManager = new AdvancedTlsX509KeyManager();
    private List<byte[]> inForce;
    private @Nullable List<byte[]> candidate;
    private @Nullable List<byte[]> refused;

    /**
     * @param certificateFile the certificate chain's PEM file
     * @param keyFile the private key's PEM file
     * @param boot the pair read at boot from them
     */
    RlsTls(Path certificateFile, Path keyFile, Identity boot) {
        this.certificateFile = certificateFile;
        this.keyFile = keyFile;
        this.inForce = boot.bytes();
        keyManager.updateIdentityCredentials(boot.chain(), boot.key());
    }

    /** @return the first certificate new connections are served now (the server's own) */
    X509Certificate served() {
        return keyManager.getCertificateChain(keyManager.chooseEngineServerAlias("RSA", null, null))[0];
    }

    /** @return the server credentials of the port: TLS with the pair in force for each new connection */
    ServerCredentials credentials() {
        return TlsServerCredentials.newBuilder().keyManager(keyManager).build();
    }

    /**
     * Reads and checks a pair: both files readable, the first holding at least one PEM certificate, the second one
     * PEM private key (PKCS #8, {@code BEGIN PRIVATE KEY}) that signs what the first certificate's public key
     * verifies.
     *
     * @param certificateFile the certificate chain's PEM file
     * @param keyFile the private key's PEM file
     * @param errors receives {@code <property>: '<file>' …} for each problem
     * @return the pair, or null when a problem was recorded
     */
    static @Nullable Identity load(Path certificateFile, Path keyFile, List<String> errors) {
        byte[] cert = read(CERTIFICATE_PROPERTY, certificateFile, errors);
        byte[] key = read(PRIVATE_KEY_PROPERTY, keyFile, errors);
        if (cert == null || key == null) {
            return null;
        }
        X509Certificate[] chain = null;
        try {
            chain = CertificateUtils.getX509Certificates(new ByteArrayInputStream(cert));
        } catch (GeneralSecurityException | RuntimeException e) {
            // reported below
        }
        if (chain == null || chain.length == 0) {
            errors.add(CERTIFICATE_PROPERTY + ": '" + certificateFile + "' holds no PEM certificate (BEGIN "
                    + "CERTIFICATE)");
            return null;
        }
        PrivateKey privateKey;
        try {
            privateKey = CertificateUtils.getPrivateKey(new ByteArrayInputStream(key));
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            privateKey = null;
        }
        if (privateKey == null) {
            errors.add(PRIVATE_KEY_PROPERTY + ": '" + keyFile + "' holds no PEM private key (PKCS #8, BEGIN "
                    + "PRIVATE KEY)");
            return null;
        }
        if (!matches(chain[0], privateKey)) {
            errors.add(PRIVATE_KEY_PROPERTY + ": '" + keyFile + "' is not the private key of the first certificate "
                    + "in " + CERTIFICATE_PROPERTY + " '" + certificateFile + "'");
            return null;
        }
        return new Identity(chain, privateKey, List.of(cert, key));
    }

    private static byte @Nullable [] read(String property, Path file, List<String> errors) {
        try {
            return RlsFiles.bounded(file, MAX_PEM_BYTES);
        } catch (IOException | RuntimeException e) {
            errors.add(property + ": '" + file + "' cannot be read (" + e.getMessage() + ")");
            return null;
        }
    }

    /** @return whether {@code key} signs what the certificate's public key verifies */
    private static boolean matches(X509Certificate certificate, PrivateKey key) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448: the key's own name
        };
        byte[] probe = "gridlimit".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try {
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(certificate.getPublicKey());
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /** Checks the two files once and puts a new valid pair in force for new connections (class comment). */
    synchronized void check() {
        List<byte[]> now = java.util.stream.Stream.of(certificateFile, keyFile).map(f -> {
            try {
                return RlsFiles.bounded(f, MAX_PEM_BYTES);
            } catch (IOException | RuntimeException e) {
                return new byte[0]; // judged (and refused) by load when it stays so
            }
        }).toList();
        if (same(now, inForce)) {
            candidate = null;
            refused = null;
            return;
        }
        if (same(now, refused)) {
            return;
        }
        if (!same(now, candidate)) {
            candidate = now;
            return;
        }
        candidate = null;
        List<String> errors = new java.util.ArrayList<>();
        Identity next = load(certificateFile, keyFile, errors);
        if (next == null) {
            refused = now;
            LOG.warn("Envoy rate limit service: TLS certificate not reloaded, the one in force stays: {}",
                    "Invalid GridLimit configuration: " + String.join("; ", errors));
            return;
        }
        keyManager.updateIdentityCredentials(next.chain(), next.key());
        inForce = next.bytes();
        LOG.info("Envoy rate limit service: TLS certificate reloaded from {} (subject {}, valid until {}); new "
                + "connections use it", certificateFile, next.chain()[0].getSubjectX500Principal().getName(),
                next.chain()[0].getNotAfter().toInstant());
    }

    private static boolean same(List<byte[]> a, @Nullable List<byte[]> b) {
        return b != null && Arrays.equals(a.get(0), b.get(0)) && Arrays.equals(a.get(1), b.get(1));
    }
}
