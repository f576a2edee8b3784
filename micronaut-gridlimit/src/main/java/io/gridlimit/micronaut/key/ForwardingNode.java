package io.gridlimit.micronaut.key;

import inet.ipaddr.IPAddress;
import io.micronaut.core.annotation.Nullable;

/**
 * One hop of a forwarding header (SPEC §6): the {@code for=} node of a {@code Forwarded} element, or one
 * {@code X-Forwarded-For} entry. Immutable.
 *
 * @param kind what the hop says
 * @param address for {@link Kind#ADDRESS}, the IP address (zone-free; IPv4-mapped IPv6 already IPv4), else null
 * @param problem for {@link Kind#MALFORMED}, why (never the raw value), else null
 */
public record ForwardingNode(Kind kind, @Nullable IPAddress address, @Nullable String problem) {
    /** The kinds of hop. */
    public enum Kind {
        /** An IP literal (port dropped). */
        ADDRESS,
        /** {@code unknown} or an RFC 7239 obfuscated identifier ({@code _abc}): a hop with no address to key by. */
        HIDDEN,
        /** Not well-formed: the client cannot be determined from here on. */
        MALFORMED
    }

    static ForwardingNode address(IPAddress address) {
        return new ForwardingNode(Kind.ADDRESS, address, null);
    }

    static ForwardingNode hidden() {
        return new ForwardingNode(Kind.HIDDEN, null, null);
    }

    static ForwardingNode malformed(String problem) {
        return new ForwardingNode(Kind.MALFORMED, null, problem);
    }
}
