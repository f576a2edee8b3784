package io.gridlimit.replay;

import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.key.ClientAddressKey;
import io.gridlimit.micronaut.key.ClientIpResolver;
import io.gridlimit.micronaut.key.KeyPart;
import io.gridlimit.micronaut.key.KeyResolver;
import io.micronaut.core.annotation.Nullable;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a log line carries for the key sources (issue 24 §2, SPEC §6): {@code client-ip} is the remote address as the
 * socket peer, walked through the configured forwarding header only when the peer is a trusted proxy and the log
 * records that header (json-lines {@code headers}); {@code header:<Name>} reads the headers the format records
 * (combined: {@code Referer}, {@code User-Agent}); a log has no principal. A remote address that is not an IP
 * address (a host name the server looked up) is an absent client address. Parts of addresses without forwarding
 * header, and whether each address is a trusted proxy, are cached by address (memory grows with addresses). Not
 * thread-safe.
 */
final class RecordParts implements KeyResolver.Parts {
    private static final String NOT_AN_ADDRESS = "the client IP address (the log's remote address is not an IP "
            + "address)";

    private final ClientIpResolver resolver;
    private final ClientIpSettings settings;
    private final String forwardingHeader;
    private final Map<String, Remote> byRemote = new HashMap<>();
    private @Nullable LogRecord record;
    /** The current record's remote address, looked up once per record. */
    private @Nullable Remote remote;

    RecordParts(ClientIpSettings settings) {
        this.resolver = new ClientIpResolver(settings);
        this.settings = settings;
        this.forwardingHeader = settings.header().headerName();
    }

    void of(LogRecord r) {
        this.record = r;
        this.remote = null;
    }

    @Override
    public KeyPart clientIp() {
        List<String> lines = record.header(forwardingHeader);
        if (!lines.isEmpty()) {
            return resolve(record.remote(), lines);
        }
        return remote().part;
    }

    private Remote remote() {
        Remote r = remote;
        if (r == null) {
            r = byRemote.get(record.remote());
            if (r == null) {
                r = new Remote(resolve(record.remote(), List.of()), trusted(record.remote()));
                byRemote.put(record.remote(), r);
            }
            remote = r;
        }
        return r;
    }

    private KeyPart resolve(String remote, List<String> lines) {
        IPAddress address = new IPAddressString(remote).getAddress();
        if (address == null || address.getNetworkPrefixLength() != null) {
            return KeyPart.absent(NOT_AN_ADDRESS);
        }
        return resolver.clientKey(new InetSocketAddress(address.toInetAddress(), 0), lines);
    }

    private boolean trusted(String remote) {
        IPAddress address = new IPAddressString(remote).getAddress();
        return address != null && address.getNetworkPrefixLength() == null
                && settings.isTrusted(ClientAddressKey.forTrust(address));
    }

    boolean peerTrusted() {
        return remote().trusted;
    }

    /**
     * What a remote address gives without a forwarding header: its client part and whether it is a trusted proxy.
     */
    private record Remote(KeyPart part, boolean trusted) {
    }

    @Override
    public List<String> header(String name) {
        return record.header(name);
    }

    @Override
    public @Nullable String principal() {
        return null;
    }
}
