package io.gridlimit.grid;

import com.hazelcast.instance.BuildInfoProvider;
import java.util.Objects;

/**
 * The startup check of the Hazelcast on the classpath: GridLimit is built and tested on {@link #TESTED}, and an
 * older Hazelcast (for example the 5.3.7 that Micronaut's platform BOM manages) must stop the application before
 * a member or client starts, with a message saying how to fix the build, instead of failing later on the wire.
 *
 * <p>Versions compare as Maven orders release versions: numerically by major, minor and patch (missing parts are
 * 0); at equal numbers a pre-release (any qualifier such as {@code -SNAPSHOT}, {@code -BETA-1}, {@code -RC1}) is
 * older than the release. So {@code 5.7.0-SNAPSHOT} and {@code 5.7.0-BETA-1} are refused, {@code 5.7.1-SNAPSHOT}
 * and {@code 5.8.0} accepted. Only {@link BuildInfoProvider}, present in every Hazelcast 5, is used, so the check
 * itself runs on the old version it refuses. Stateless and thread-safe.
 */
public final class HazelcastVersion {
    /** The Hazelcast version GridLimit is built and tested on (the build's {@code hazelcast.version}). */
    public static final String TESTED = "5.7.0";

    private HazelcastVersion() {
    }

    /**
     * Checks the running Hazelcast ({@code BuildInfoProvider.getBuildInfo().getVersion()}).
     *
     * @return the running version, at least {@link #TESTED}
     * @throws IllegalStateException if the running Hazelcast is older than {@link #TESTED}, or its version cannot
     *     be read; the message names the version found, the version needed and the build setting that fixes it
     */
    public static String requireTested() {
        return require(BuildInfoProvider.getBuildInfo().getVersion());
    }

    /**
     * Checks a Hazelcast version string against {@link #TESTED}.
     *
     * @param found the version found, e.g. {@code "5.3.7"} or {@code "5.8.0-SNAPSHOT"}
     * @return {@code found}
     * @throws IllegalStateException if {@code found} is older than {@link #TESTED} or not a version
     * @throws NullPointerException if {@code found} is null
     */
    static String require(String found) {
        Objects.requireNonNull(found, "found");
        if (!isAtLeast(found, TESTED)) {
            throw new IllegalStateException("GridLimit needs Hazelcast " + TESTED + " or newer, but Hazelcast "
                    + found + " is on the classpath. Under micronaut-parent, set the Maven property"
                    + " <hazelcast.version>" + TESTED + "</hazelcast.version> in your pom (the parent's platform BOM"
                    + " manages Hazelcast, and an imported BOM loses to it); otherwise import"
                    + " io.gridlimit:gridlimit-bom before Micronaut's platform BOM in <dependencyManagement>.");
        }
        return found;
    }

    /**
     * Compares two versions as the class javadoc says.
     *
     * @param found the version to check
     * @param needed the least acceptable release, e.g. {@code "5.7.0"}
     * @return true when {@code found} is {@code needed} or newer; false when older or when {@code found} does not
     *     start with a number
     */
    static boolean isAtLeast(String found, String needed) {
        long[] f = parse(found);
        long[] n = parse(needed);
        if (f == null || n == null) {
            return false;
        }
        for (int i = 0; i < 4; i++) {
            if (f[i] != n[i]) {
                return f[i] > n[i];
            }
        }
        return true;
    }

    /** @return major, minor, patch, and 1 for a release or 0 for a pre-release; null when no leading number */
    private static long[] parse(String version) {
        String v = version.trim();
        long[] parts = new long[4];
        int i = 0;
        int part = 0;
        while (part < 3) {
            int start = i;
            while (i < v.length() && Character.isDigit(v.charAt(i)) && i - start < 9) {
                i++;
            }
            if (i == start) {
                if (part == 0) {
                    return null;
                }
                break;
            }
            parts[part++] = Long.parseLong(v.substring(start, i));
            if (i < v.length() && v.charAt(i) == '.' && i + 1 < v.length() && Character.isDigit(v.charAt(i + 1))) {
                i++;
            } else {
                break;
            }
        }
        parts[3] = i == v.length() ? 1 : 0; // anything after the numbers is a qualifier: a pre-release
        return parts;
    }
}
