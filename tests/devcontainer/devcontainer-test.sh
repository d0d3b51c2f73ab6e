#!/usr/bin/env bash
# devcontainer-test.sh: the devcontainer (.devcontainer/) as far as it can
# be tried where its image cannot be built: that needs debian:12 from an
# image registry, and none is reachable where the workbook is made. So:
# the Dockerfile starts from debian:12 and holds only COPY lines, one RUN
# line that runs install.sh and nothing else (so no package can come from
# elsewhere), and the USER that install.sh makes; devcontainer.json builds
# that Dockerfile and runs as that user. Then a fresh Debian 12 root,
# made by debootstrap as debian:12 is (minbase, with its apt sources),
# gets the Dockerfile's COPY lines and RUN line replayed as root, and this
# checkout's committed tree where Codespaces puts it; there the container's
# user, with devcontainer.json's containerEnv, runs make deps (all there),
# make test LAB=map (the skeleton fails, stage by stage), the same on the
# solution (passes) and make handouts. Needs root, debootstrap (make
# deps-devcontainer) and Debian's mirror (MIRROR=); KEEP=1 keeps the root.
set -u
cd "$(dirname "$0")/../.." || exit 1
status=0
fail() { echo "devcontainer-test: $*"; status=1; }
say() { echo "devcontainer-test: $*"; }
dockerfile=.devcontainer/Dockerfile json=.devcontainer/devcontainer.json

# ---- the Dockerfile and devcontainer.json, read -----------------------------
# Its instructions, a line each (continued lines joined, comments dropped).
mapfile -t lines < <(sed -e :a -e '/\\$/N; s/\\\n//; ta' "$dockerfile" | grep -v '^[[:space:]]*\(#\|$\)')
copies=() run="" user="" from=""
for line in "${lines[@]}"; do
    read -r instruction rest <<< "$line"
    case ${instruction^^} in
        FROM) from=$rest ;;
        COPY) copies+=("$rest") ;;
        RUN)  [ -z "$run" ] || fail "the Dockerfile has more than one RUN line: $rest"; run=$rest ;;
        USER) user=$rest ;;
        *)    fail "the Dockerfile's $instruction line is one this test cannot replay: $line" ;;
    esac
done
[ "$from" = debian:12 ] || fail "the Dockerfile starts FROM $from, not debian:12 (which this test builds with debootstrap)"
install_at=""
for copy in "${copies[@]}"; do
    read -r src dest extra <<< "$copy"
    if [ -n "$extra" ] || [ ! -e "$src" ]; then fail "a COPY line this test cannot replay: COPY $copy"; fi
    [ "$src" != .devcontainer/install.sh ] || install_at=$dest
done
[ -n "$install_at" ] || fail "the Dockerfile does not COPY .devcontainer/install.sh"
[ "$run" = "sh $install_at $user" ] ||
    fail "the Dockerfile's RUN line is \"$run\", not \"sh $install_at $user\": it must install through install.sh alone"
read -r json_dockerfile json_context json_user json_env < <(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
env = " ".join("%s=%s" % kv for kv in c.get("containerEnv", {}).items())
print(c["build"]["dockerfile"], c["build"]["context"], c.get("remoteUser", "-"), env)' "$json") ||
    fail "$json does not parse as JSON"
if [ "${json_dockerfile:-}" != Dockerfile ] || [ "${json_context:-}" != .. ]; then
    fail "$json does not build .devcontainer/Dockerfile from the checkout's top"
fi
[ "${json_user:-}" = "$user" ] || fail "$json runs as ${json_user:-nobody}, the Dockerfile as $user"
if [ $status -ne 0 ]; then exit 1; fi
say "the Dockerfile installs through install.sh alone; devcontainer.json builds it and runs as $user"

# ---- its RUN line in a fresh Debian 12 root ----------------------------------
# shellcheck source=tests/platforms/debian-root.sh
. tests/platforms/debian-root.sh
debian_root devcontainer || exit 1

started=$(date +%s)
say "debootstrap: a minimal Debian 12 from $mirror"
debootstrap --variant=minbase bookworm "$sys" "$mirror" > "$tmp/debootstrap.log" 2>&1 ||
    { tail -n 20 "$tmp/debootstrap.log"; fail "debootstrap failed"; exit 1; }
# debian:12's apt sources, in place of debootstrap's one line
rm -f "$sys/etc/apt/sources.list"
cat > "$sys/etc/apt/sources.list.d/debian.sources" << SOURCES
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
# what Docker gives a container: the host's resolver, a hosts file naming it
cp /etc/resolv.conf "$sys/etc/resolv.conf"
printf '127.0.0.1\tlocalhost %s\n' "$(hostname)" > "$sys/etc/hosts"
if ! { mount_in proc /proc -t proc && mount_in /dev /dev --bind &&
       mount_in devpts /dev/pts -t devpts && mount_in tmpfs /dev/shm -t tmpfs; }; then
    fail "could not mount /proc and /dev in the root"; exit 1
fi
for copy in "${copies[@]}"; do
    read -r src dest <<< "$copy"
    mkdir -p "$(dirname "$sys$dest")" && cp -R "$src" "$sys$dest"
done
say "RUN $run"
in_root /bin/sh -c "$run" > "$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; fail "the RUN line failed"; exit 1; }
sed 's/^/    /' "$tmp/run.log"
say "image made in $(( $(date +%s) - started )) s"

# ---- the container's user in the workspace -----------------------------------
workspace=/workspaces/gpu-workbook
mkdir -p "$sys$workspace" && git archive HEAD | tar -x -C "$sys$workspace"
if ! { uid=$(in_root id -u "$user") && gid=$(in_root id -g "$user"); }; then
    fail "no user $user in the image"; exit 1
fi
chown -R "$uid:$gid" "$sys/workspaces"
# as_user COMMAND: COMMAND in the workspace, as the container's user, with
# devcontainer.json's containerEnv
as_user() {
    # shellcheck disable=SC2086 # json_env is NAME=VALUE words
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="/home/$user" USER="$user" $json_env \
        "$chroot" --userspec="$uid:$gid" "$sys" /bin/bash -c "cd $workspace && $1"
}
t0=$(date +%s)
as_user "make deps" > "$tmp/deps.log" 2>&1 || fail "make deps fails in the container: $(cat "$tmp/deps.log")"
grep -q '^deps: Criterion .* are installed' "$tmp/deps.log" ||
    fail "make deps finds something missing in the container: $(cat "$tmp/deps.log")"
sed 's/^/    /' "$tmp/deps.log"
as_user "make test LAB=map" > "$tmp/skeleton.log" 2>&1 && fail "make test LAB=map passed on the skeleton"
grep -q '^  stage 1 .* passed   <- start here' "$tmp/skeleton.log" ||
    { cat "$tmp/skeleton.log"; fail "make test LAB=map on the skeleton: no stage summary pointing at stage 1"; }
tail -n 7 "$tmp/skeleton.log" | sed 's/^/    /'
as_user "make test LAB=map SOLUTION=1" > "$tmp/solution.log" 2>&1 ||
    { cat "$tmp/solution.log"; fail "make test LAB=map SOLUTION=1 fails in the container"; }
[ "$(grep -c '^  stage .* 19 of  19 passed$' "$tmp/solution.log")" = 6 ] ||
    { cat "$tmp/solution.log"; fail "make test LAB=map SOLUTION=1: not every stage passed"; }
as_user "make handouts" > "$tmp/handouts.log" 2>&1 ||
    { cat "$tmp/handouts.log"; fail "make handouts fails in the container"; }
say "as $user: make deps, make test LAB=map (skeleton and solution), make handouts in $(( $(date +%s) - t0 )) s"

[ $status -eq 0 ] && say "the devcontainer's install steps and a student's first commands work in a fresh Debian 12 root ($(( $(date +%s) - started )) s); the image itself was not built here"
exit $status
