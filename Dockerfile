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
# k8s/overlays/client-server runs the same image as its grid members (embedded mode, no HTTP traffic): they carry
# grid-core's classes and are configured by the same code as an embedded member.
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}

ARG JAR_FILE=micronaut-app/target/micronaut-app-*-all.jar
WORKDIR /app
COPY ${JAR_FILE} /app/gridlimit.jar

# A numeric non-root user works on every base image, with or without useradd or an /etc/passwd entry
# (Kubernetes' runAsNonRoot can only verify a numeric USER).
USER 10001:10001

# 8080: the public HTTP port (the application's routes). 8081: the internal port (decision API, /health/*, /prometheus;
# bound to 127.0.0.1 unless GRIDLIMIT_DECISION_API_HOST says otherwise). 5701: Hazelcast member-to-member (and client).
EXPOSE 8080 8081 5701

# The heap follows the container's memory limit (cgroup aware) instead of the host's RAM; the remaining 40% is left for
# metaspace, Netty's direct buffers, thread stacks and Hazelcast's own off-heap use. Override JAVA_TOOL_OPTIONS to tune.
ENV JAVA_TOOL_OPTIONS="-XX:InitialRAMPercentage=60 -XX:MaxRAMPercentage=60 -XX:+ExitOnOutOfMemoryError"

# Module access Hazelcast asks for (its startup warning lists exactly these) for its internal fast paths and metrics.
# JDK_JAVA_OPTIONS is read by the java launcher only, so it survives a JAVA_TOOL_OPTIONS override (the k8s manifests
# set their own heap options there).
ENV JDK_JAVA_OPTIONS="--add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.management/sun.management=ALL-UNNAMED --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED"

# Exec form: java is PID 1 and receives SIGTERM itself, so Micronaut and Hazelcast shut down gracefully.
ENTRYPOINT ["java", "-jar", "/app/gridlimit.jar"]
