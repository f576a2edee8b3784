package io.gridlimit.micronaut.config;

/** How this process reaches the grid ({@code gridlimit.hazelcast.mode}). */
public enum HazelcastMode {
    /** This process is a Hazelcast member (the default). */
    EMBEDDED,
    /** This process is a Hazelcast client of an existing cluster whose members carry grid-core. */
    CLIENT
}
