# GridLimit service image: the runnable jar (an embedded Hazelcast member plus the HTTP API) on a JRE 17.
#
#   mvn -pl micronaut-app -am package -DskipTests       writes micronaut-app/target/micronaut-app-<version>-all.jar
#   docker build -t gridlimit:0.1.0-SNAPSHOT .
#
# BASE_IMAGE: any image with `java` 17+ on the PATH. The public default suits machines that can pull; where no registry
# is reachable, build a local one (.ci/build-base-image) and pass --build-arg BASE_IMAGE=local/jre17:latest.
# JAR_FILE: the shaded jar, relative to the build context (the repository root); builds with
# -Dgridlimit.buildSuffix=-x write it to micronaut-app/target-x/ instead.
#
# The same image runs a plain Hazelcast member carrying grid-core's classes (k8s/overlays/client-server):
#   java -cp /app/gridlimit.jar com.hazelcast.core.server.HazelcastMemberStarter
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}

ARG JAR_FILE=micronaut-app/target/micronaut-app-*-all.jar
WORKDIR /app
COPY ${JAR_FILE} /app/gridlimit.jar

# A numeric non-root user works on every base image, with or without useradd or an /etc/passwd entry
# (Kubernetes' runAsNonRoot can only verify a numeric USER).
USER 10001:10001

# 8080: HTTP API, /health/*, /prometheus. 5701: Hazelcast member-to-member (and client) traffic.
EXPOSE 8080 5701

# The heap follows the container's memory limit (cgroup aware) instead of the host's RAM; the remaining 40% is left for
# metaspace, Netty's direct buffers, thread stacks and Hazelcast's own off-heap use. Override JAVA_TOOL_OPTIONS to tune.
ENV JAVA_TOOL_OPTIONS="-XX:InitialRAMPercentage=60 -XX:MaxRAMPercentage=60 -XX:+ExitOnOutOfMemoryError"

# Exec form: java is PID 1 and receives SIGTERM itself, so Micronaut and Hazelcast shut down gracefully.
ENTRYPOINT ["java", "-jar", "/app/gridlimit.jar"]
