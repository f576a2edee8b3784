package io.gridlimit.envoy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.gridlimit.envoy.Rls.d;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * docs/SPEC.md §12, "TLS": with {@code gridlimit.envoy-rls.tls.*} the port serves TLS only, with the certificate
 * read again when its files change (new connections get the new one); a bad pair stops the boot naming the property
 * and the file. Self-signed certificates for 127.0.0.1 are made with {@code openssl} before the tests.
 */
class EnvoyTlsTest {
    @TempDir
    static Path keys;
    static Path firstCert;
    static Path firstKey;
    static Path secondCert;
    static Path secondKey;

    @BeforeAll
    static void certificates() throws Exception {
        firstCert = keys.resolve("first.crt");
        firstKey = keys.resolve("first.key");
        secondCert = keys.resolve("second.crt");
        secondKey = keys.resolve("second.key");
        selfSigned("first", firstCert, firstKey);
        selfSigned("second", secondCert, secondKey);
    }

    private static void selfSigned(String name, Path cert, Path key) throws Exception {
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=" + name, "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.toString(),
                "-out", cert.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
    }

    private static Map<String, Object> properties(String cluster, Path cert, Path key) {
        Map<String, Object> p = Rls.properties(cluster, "example1.yaml");
        p.put("gridlimit.envoy-rls.tls.certificate-file", cert.toString());
        p.put("gridlimit.envoy-rls.tls.private-key-file", key.toString());
        p.put("gridlimit.envoy-rls.reload-interval", "100ms");
        return p;
    }

    private static int port(Map<String, Object> p) {
        return Integer.parseInt(String.valueOf(p.get("gridlimit.envoy-rls.port")));
    }

    private static ManagedChannel trusting(Path cert, int port) throws IOException {
        ChannelCredentials credentials = TlsChannelCredentials.newBuilder().trustManager(cert.toFile()).build();
        return Grpc.newChannelBuilderForAddress("127.0.0.1", port, credentials).build();
    }

    private static String decide(ManagedChannel channel) {
        return String.join(",", Rls.statuses(RateLimitServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(RateLimitRequest.newBuilder()
                        .setDomain("mongo_cps").addDescriptors(d("database", "users")).build())));
    }

    @Test
    void aClientTrustingTheCertificateIsServedAPlaintextOneIsNotAndANewCertificateServesNewConnections(
            @TempDir Path served) throws Exception {
        Path cert = Files.copy(firstCert, served.resolve("tls.crt"));
        Path key = Files.copy(firstKey, served.resolve("tls.key"));
        Map<String, Object> p = properties("envoy-tls", cert, key);
        try (ApplicationContext context = ApplicationContext.run(p);
             Rls plaintext = Rls.client(context, port(p))) {
            ManagedChannel first = trusting(firstCert, port(p));
            try {
                assertThat(decide(first)).isEqualTo("OK 499/500 per SECOND");
                assertThat(HealthGrpc.newBlockingStub(first).withDeadlineAfter(10, TimeUnit.SECONDS)
                        .check(HealthCheckRequest.newBuilder().setService("ratelimit").build()).getStatus())
                        .isEqualTo(ServingStatus.SERVING);
                assertThatThrownBy(() -> plaintext.call("mongo_cps", d("database", "users")))
                        .isInstanceOfSatisfying(StatusRuntimeException.class,
                                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

                Files.copy(secondKey, key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.copy(secondCert, cert, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                // a new connection trusting only the second certificate is served once it is in force
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    ManagedChannel second = trusting(secondCert, port(p));
                    try {
                        return decide(second).startsWith("OK ");
                    } catch (StatusRuntimeException e) {
                        return false;
                    } finally {
                        second.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                    }
                });
                // the connection opened under the first certificate goes on
                assertThat(decide(first)).startsWith("OK ");
                // and a new connection trusting only the first certificate is refused now
                ManagedChannel again = trusting(firstCert, port(p));
                try {
                    assertThatThrownBy(() -> decide(again)).isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
                } finally {
                    again.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                }
            } finally {
                first.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aBadPairAtReloadIsRefusedAndTheServedOneStaysUntilAGoodPairIsSeenTwice(@TempDir Path served)
            throws Exception {
        Path cert = Files.copy(firstCert, served.resolve("tls.crt"));
        Path key = Files.copy(firstKey, served.resolve("tls.key"));
        List<String> errors = new java.util.ArrayList<>();
        RlsTls tls = new RlsTls(cert, key, RlsTls.load(cert, key, errors));
        assertThat(errors).isEmpty();
        assertThat(tls.served().getSubjectX500Principal().getName()).isEqualTo("CN=first");

        Files.writeString(cert, "not a certificate\n");
        tls.check(); // a candidate
        tls.check(); // judged: refused, the first pair stays
        tls.check();
        assertThat(tls.served().getSubjectX500Principal().getName()).isEqualTo("CN=first");

        Files.copy(secondCert, cert, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(secondKey, key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        tls.check();
        assertThat(tls.served().getSubjectX500Principal().getName()).as("judged on the next check only")
                .isEqualTo("CN=first");
        tls.check();
        assertThat(tls.served().getSubjectX500Principal().getName()).isEqualTo("CN=second");
    }

    @Test
    void oneFileAloneOrABadFileStopsBootNamingThePropertyAndTheFile() throws Exception {
        Map<String, Object> certOnly = properties("envoy-tls-bad", firstCert, firstKey);
        certOnly.remove("gridlimit.envoy-rls.tls.private-key-file");
        assertThat(EnvoyReloadTest.bootError(certOnly)).contains("gridlimit.envoy-rls.tls.certificate-file is set "
                + "but gridlimit.envoy-rls.tls.private-key-file is not; set both (PEM files) for TLS, or neither for "
                + "plaintext");
        Map<String, Object> keyOnly = properties("envoy-tls-bad", firstCert, firstKey);
        keyOnly.remove("gridlimit.envoy-rls.tls.certificate-file");
        assertThat(EnvoyReloadTest.bootError(keyOnly)).contains("gridlimit.envoy-rls.tls.private-key-file is set "
                + "but gridlimit.envoy-rls.tls.certificate-file is not");
        Path missing = keys.resolve("missing.crt");
        assertThat(EnvoyReloadTest.bootError(properties("envoy-tls-bad", missing, firstKey)))
                .contains("gridlimit.envoy-rls.tls.certificate-file: '" + missing + "' cannot be read (");
        Path garbage = Files.writeString(keys.resolve("garbage.pem"), "not a certificate\n");
        assertThat(EnvoyReloadTest.bootError(properties("envoy-tls-bad", garbage, firstKey)))
                .contains("gridlimit.envoy-rls.tls.certificate-file: '" + garbage + "' holds no PEM certificate "
                        + "(BEGIN CERTIFICATE)");
        assertThat(EnvoyReloadTest.bootError(properties("envoy-tls-bad", firstCert, firstCert)))
                .contains("gridlimit.envoy-rls.tls.private-key-file: '" + firstCert + "' holds no PEM private key "
                        + "(PKCS #8, BEGIN PRIVATE KEY)");
        assertThat(EnvoyReloadTest.bootError(properties("envoy-tls-bad", firstCert, secondKey)))
                .contains("gridlimit.envoy-rls.tls.private-key-file: '" + secondKey + "' is not the private key of "
                        + "the first certificate in gridlimit.envoy-rls.tls.certificate-file '" + firstCert + "'");
        assertThat(List.of(firstCert, firstKey)).allSatisfy(f -> assertThat(f).exists());
    }
}
