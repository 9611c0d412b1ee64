# plantcheck in a container: a static binary on a distroless base, run as
# a user that is not root. Built here as far as the machine allows: the
# build stage's command (CGO_ENABLED=0 go build) was run and its binary
# checked static and run as an unprivileged user; the image itself was
# not built (no Docker daemon, no registry of images on the machine that
# made it). See docs/proxy.md, "As a sidecar".
#
#   docker build -t plantcheck --build-arg VERSION="$(git describe --tags --always --dirty)" .
#   docker run --rm plantcheck run                       # certifies the bundled reference
#   docker run --rm -p 8081:8081 -p 9090:9090 plantcheck proxy \
#     --addr :8081 --admin-addr :9090 --upstream http://service:8080

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# .dockerignore leaves .git out (nothing of the repository's history or
# config enters the build), so the version is stamped from VERSION, as
# the first line above passes it. Without it the binary says devel-docker,
# never a version it is not. (The release's image is Dockerfile.release.)
ARG VERSION=devel-docker
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X github.com/plantcheck/plantcheck/internal/buildinfo.version=${VERSION}" -o /out/ ./cmd/plantcheck ./cmd/plantcheck-verify-bundle

FROM gcr.io/distroless/static-debian12:nonroot
# plantcheck-verify-bundle beside plantcheck, where verify --bundle looks first.
COPY --from=build /out/plantcheck /out/plantcheck-verify-bundle /
# distroless's nonroot user (65532). Give --report-dir a mounted volume it
# can write (in Kubernetes, an emptyDir with fsGroup 65532).
USER 65532:65532
EXPOSE 8081 9090
ENTRYPOINT ["/plantcheck"]
CMD ["run"]
