package io.gridlimit.micronaut.key;

import inet.ipaddr.IPAddress;
import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.config.ForwardingHeader;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.key.ClientAddressKey;
import io.gridlimit.micronaut.key.ForwardedParser;
import io.gridlimit.micronaut.key.ForwardingNode;
import io.gridlimit.micronaut.key.KeyPart;
import io.gridlimit.micronaut.key.NodeSyntax;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * Finds a request's client and its key part (SPEC §6) from the socket peer and, only when the peer is a trusted
 * proxy, the one forwarding header the proxies write ({@code gridlimit.client-ip.header}: {@code X-Forwarded-For}
 * by default, or {@code Forwarded}); the other header is never read. Micronaut's default client-address resolver
 * believes those headers from anyone and is not used.
 *
 * <p>Each header line is parsed on its own ({@link ForwardedParser}, {@link NodeSyntax}). The walk goes from the
 * right (the nearest proxy) over the lines' elements: a trusted address is passed over; the first other element
 * is the client: an untrusted address is keyed ({@link ClientAddressKey}); {@code unknown} or an obfuscated
 * identifier is a client with no address (absent: {@code on-missing-key} applies); a malformed element makes the
 * key malformed (always 400). Elements left of the client are never looked at, and earlier lines are not even
 * parsed. A trusted peer whose header is missing or has no elements (empty lines) is itself the client; when
 * every element is trusted, the leftmost is the client. Immutable and thread-safe.
 */
@Singleton
public class ClientIpResolver {
    private static final String WHAT = "the client IP address";

    private final ClientIpSettings settings;

    /** @param config the checked configuration; its {@code client-ip} settings are used */
    @jakarta.inject.Inject
    public ClientIpResolver(GridLimitConfig config) {
        this(config.clientIp());
    }

    /** @param settings trusted proxies, IPv6 prefix and the forwarding header */
    public ClientIpResolver(ClientIpSettings settings) {
        this.settings = settings;
    }

    /**
     * Tells whether a request's socket peer lies in {@code trusted-proxies} (SPEC §6's trust check): only then may
     * a header a proxy writes, such as a plan header (SPEC §11), be believed.
     *
     * @param request the request
     * @return true when the peer is a trusted proxy; false without a peer
     */
    public boolean peerIsTrusted(HttpRequest<?> request) {
        InetSocketAddress peer = request.getRemoteAddress();
        return peer != null && peer.getAddress() != null
                && settings.isTrusted(ClientAddressKey.forTrust(peer.getAddress()));
    }

    /**
     * Resolves a request's client key part from its socket peer and the configured forwarding header's lines.
     *
     * @param request the request
     * @return the key part, never null
     */
    public KeyPart clientKey(HttpRequest<?> request) {
        return clientKey(request.getRemoteAddress(),
                request.getHeaders().getAll(settings.header().headerName()));
    }

    /**
     * Resolves the client key part.
     *
     * @param peer the socket peer ({@code HttpRequest#getRemoteAddress()}), may be null
     * @param lines the lines of the configured forwarding header, in the order received, may be empty
     * @return present {@code ip:<address>} or {@code ip:<network>/<n>}; absent when there is no peer or the
     *     client is {@code unknown} or obfuscated; malformed when an element up to and including the client is
     */
    public KeyPart clientKey(@Nullable InetSocketAddress peer, List<String> lines) {
        if (peer == null || peer.getAddress() == null) {
            return KeyPart.absent(WHAT + " (the request has no socket peer)");
        }
        IPAddress peerAddress = ClientAddressKey.forTrust(peer.getAddress());
        if (!settings.isTrusted(peerAddress)) {
            return KeyPart.present(key(peerAddress));
        }
        IPAddress leftmost = peerAddress;
        for (int line = lines.size() - 1; line >= 0; line--) {
            List<ForwardingNode> nodes = settings.header() == ForwardingHeader.FORWARDED
                    ? ForwardedParser.parseLine(lines.get(line)) : NodeSyntax.xForwardedForLine(lines.get(line));
            for (int i = nodes.size() - 1; i >= 0; i--) {
                ForwardingNode node = nodes.get(i);
                switch (node.kind()) {
                    case MALFORMED:
                        return KeyPart.malformed("a well-formed " + settings.header().headerName() + " header: "
                                + "the walk to the client met " + node.problem());
                    case HIDDEN:
                        return KeyPart.absent(WHAT + " (the " + settings.header().headerName()
                                + " header names the client 'unknown' or by an obfuscated identifier)");
                    default:
                        if (!settings.isTrusted(node.address())) {
                            return KeyPart.present(key(node.address()));
                        }
                        leftmost = node.address();
                }
            }
        }
        return KeyPart.present(key(leftmost));
    }

    /**
     * The key part of an address ({@link ClientAddressKey#key}) under this resolver's {@code ipv6-prefix}.
     *
     * @param address an address
     * @return {@code ip:203.0.113.7}, {@code ip:2001:db8:1:2::/64}, {@code ip:::1}, ...; never null
     */
    public String key(IPAddress address) {
        return ClientAddressKey.key(address, settings.ipv6Prefix());
    }
}
