package io.gridlimit.envoy.config;

import io.micronaut.core.annotation.Nullable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * Which files {@code gridlimit.envoy-rls.config-files} stands for, and the digest of a set of them (docs/SPEC.md
 * §12, "Settings" and "Reload"). The one home of both rules: {@link RlsConfigReader} reads what {@link #resolve}
 * lists and digests the bytes it parses, and the reload check ({@link #digest(List)}) digests the same files the
 * same way, so a set is read again exactly when its names or contents change. Stateless.
 *
 * <p><b>Digest.</b> SHA-256 over, for each file in reading order, its path as messages show it and then its bytes,
 * each preceded by its length in bytes (decimal) and {@code :}; a path that cannot be listed or read adds its error
 * text instead (so a set that turns unreadable differs from the one in force). Shown as the first
 * {@value #SHORT_DIGEST_HEX} hex digits ({@link #shortDigest}).
 */
public final class RlsFiles {
    /** Hex digits of a digest as logs show it. */
    public static final int SHORT_DIGEST_HEX = 12;
    /** Largest configuration file read: 16 MiB (envoyproxy/ratelimit's files are kilobytes). */
    public static final long MAX_CONFIG_BYTES = 16L << 20;

    private RlsFiles() {
    }

    /**
     * Lists the files of the configured paths in reading order: a blank entry is refused (never the working
     * directory), a directory stands for its {@code *.yaml} and {@code *.yml} files (any case, not starting with
     * {@code .}, regular files or links to them, in name order; a directory with none is refused), anything else
     * must be a regular file.
     *
     * @param paths the configured paths, possibly empty (refused)
     * @param errors receives each refusal, naming {@value RlsConfigReader#PROPERTY}{@code [i]}
     * @return the files, in reading order, never null
     */
    static List<Path> resolve(List<String> paths, List<String> errors) {
        String property = RlsConfigReader.PROPERTY;
        if (paths.isEmpty()) {
            errors.add(property + ": is empty; list the envoyproxy/ratelimit YAML files (or directories of them) "
                    + "to serve");
        }
        List<Path> out = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            String where = property + "[" + i + "]";
            if (paths.get(i).isBlank()) {
                // Path.of("") is the working directory: never read it by accident
                errors.add(where + ": is empty; write a file or directory path");
                continue;
            }
            Path path = Path.of(paths.get(i).trim());
            if (Files.isDirectory(path)) {
                List<Path> files;
                try (Stream<Path> list = Files.list(path)) {
                    files = list.filter(p -> !p.getFileName().toString().startsWith("."))
                            .filter(p -> p.getFileName().toString().matches("(?i).*\\.ya?ml"))
                            .filter(Files::isRegularFile).sorted().toList();
                } catch (IOException e) {
                    errors.add(where + ": cannot list directory '" + path + "': " + e.getMessage());
                    continue;
                }
                if (files.isEmpty()) {
                    errors.add(where + ": directory '" + path + "' holds no .yaml or .yml file");
                }
                out.addAll(files);
            } else if (Files.isRegularFile(path)) {
                out.add(path);
            } else {
                errors.add(where + ": '" + paths.get(i) + "' is neither a file nor a directory");
            }
        }
        return out;
    }

    /**
     * Digests the files the configured paths stand for now, as {@link RlsConfigReader} would read them.
     *
     * @param paths the configured paths
     * @return the lower-case hex SHA-256 (64 digits), never null
     */
    public static String digest(List<String> paths) {
        List<String> errors = new ArrayList<>();
        Digest digest = new Digest();
        for (Path file : resolve(paths, errors)) {
            List<String> unreadable = new ArrayList<>();
            byte[] bytes = bytes(file, unreadable);
            digest.add(file.toString(), bytes);
            errors.addAll(unreadable);
        }
        errors.forEach(digest::error);
        return digest.hex();
    }

    /**
     * @param digest a digest as {@link #digest(List)} or {@link RlsConfig#digest()} gives it
     * @return its first {@value #SHORT_DIGEST_HEX} hex digits
     */
    public static String shortDigest(String digest) {
        return digest.substring(0, Math.min(SHORT_DIGEST_HEX, digest.length()));
    }

    /**
     * @param file a file to read
     * @param errors receives {@code <file>: cannot be read: …}
     * @return its bytes, or null when it cannot be read
     */
    static byte @Nullable [] bytes(Path file, List<String> errors) {
        try {
            return bounded(file, MAX_CONFIG_BYTES);
        } catch (IOException e) {
            errors.add(file + ": cannot be read: " + e.getMessage());
            return null;
        }
    }

    /**
     * Reads a regular file of at most {@code maxBytes} (a device, a pipe or a file that grew past the bound is
     * refused before its bytes are held, so that no path can exhaust the heap or block a check).
     *
     * @param file the file (links are followed)
     * @param maxBytes the most bytes accepted, >= 0
     * @return the bytes, never null
     * @throws IOException if it is not a regular file, is larger than {@code maxBytes}, or cannot be read
     */
    public static byte[] bounded(Path file, long maxBytes) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("not a regular file");
        }
        if (Files.size(file) > maxBytes) {
            throw new IOException("larger than " + maxBytes + " bytes");
        }
        try (java.io.InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            if (bytes.length > maxBytes) {
                throw new IOException("larger than " + maxBytes + " bytes");
            }
            return bytes;
        }
    }

    /** The digest of one set of files (the class comment gives the layout). Not thread-safe. */
    static final class Digest {
        private final MessageDigest sha;

        Digest() {
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required of every JVM", e);
            }
        }

        /**
         * @param name the file's path as messages show it
         * @param bytes its contents, or null when unreadable (then only the name is digested)
         */
        void add(String name, byte @Nullable [] bytes) {
            part(name.getBytes(StandardCharsets.UTF_8));
            if (bytes != null) {
                part(bytes);
            }
        }

        /** @param error a refusal of a path, digested in place of the files it would have given */
        void error(String error) {
            part(("!" + error).getBytes(StandardCharsets.UTF_8));
        }

        private void part(byte[] bytes) {
            sha.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
            sha.update(bytes);
        }

        /** @return the lower-case hex SHA-256 of everything added */
        String hex() {
            return HexFormat.of().formatHex(sha.digest());
        }
    }
}
