#!/bin/bash
# Builds .devbundle/ (see bench/device/README.md) from the current build:
#   bash bench/device/make_bundle.sh          (BUILD=... to use another build dir)
# The device image has no MariaDB and may have other library versions, so the
# bundle carries this machine's Debian 12 MariaDB tools and every non-glibc
# library that the binaries load, behind wrappers that unpack to /opt/sb.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
PREFIX=/opt/sb   # fixed: the wrappers and mariadb-install-db's --basedir name it
OUTDIR=$ROOT/.devbundle

die() { echo "make_bundle: $*" >&2; exit 1; }
for f in "$BUILD/bin/sluiced" "$BUILD/bin/sluice-lockbench"; do
  [ -x "$f" ] || die "$f missing: build it first"
done
# bench/replication.py needs it and the working tree that travels lacks it (.gitignore).
[ -x tests/clients/go/bin/binlogreader ] || die "tests/clients/go/bin/binlogreader missing: build the Go clients first"
DEBIAN_TOOLS=(/usr/sbin/mariadbd /usr/bin/mariadb /usr/bin/mariadb-slap /usr/bin/mariadb-binlog
              /usr/bin/my_print_defaults /usr/bin/resolveip /usr/bin/mariadb-install-db)
for f in "${DEBIAN_TOOLS[@]}" /usr/bin/perf; do
  [ -x "$f" ] || die "$f missing: apt-get install mariadb-server mariadb-client linux-perf"
done
mapfile -t PLUGINS < <(find "$BUILD/" -name 'semisync_*.so' -type f)
[ ${#PLUGINS[@]} -gt 0 ] || die "no semisync_*.so under $BUILD"

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
SB=$STAGE/sb
mkdir -p "$SB"/{bin,sbin,libexec,plugin,lib/mysql/plugin,lib/libmariadb3/plugin,share/mysql/english}

# Stripped copies: the bundle must stay well under the 64 MiB that travels.
strip -o "$SB/libexec/sluiced" "$BUILD/bin/sluiced"
strip -o "$SB/libexec/sluice-lockbench" "$BUILD/bin/sluice-lockbench"
for p in "${PLUGINS[@]}"; do strip -o "$SB/plugin/$(basename "$p")" "$p"; done
cp tests/clients/go/bin/binlogreader "$SB/libexec/"
cp "${DEBIAN_TOOLS[@]}" "$SB/libexec/"
# Record which sluiced this is, as the device cannot tell.
{ sha256sum "$BUILD/bin/sluiced"; ls -la "$BUILD/bin/sluiced"; } > "$SB/SLUICED_SOURCE.sha256"

# The client tools need these auth plugins to log in to sluiced (caching_sha2_password).
for p in caching_sha2_password client_ed25519 dialog mysql_clear_password sha256_password; do
  cp /usr/lib/x86_64-linux-gnu/libmariadb3/plugin/$p.so "$SB/lib/libmariadb3/plugin/"
done
# What mariadbd and mariadb-install-db read: charsets, English errmsg, bootstrap SQL.
cp -r /usr/share/mysql/charsets "$SB/share/mysql/"
cp /usr/share/mysql/english/errmsg.sys "$SB/share/mysql/english/"
for s in fill_help_tables maria_add_gis_sp_bootstrap mysql_performance_tables mysql_sys_schema \
         mysql_system_tables mysql_system_tables_data mysql_test_db; do
  cp /usr/share/mysql/$s.sql "$SB/share/mysql/"
done

# Copies every library that ldd resolves for the given files, except glibc's
# own: those must come from the device, whose glibc must then be >= 2.36.
copy_libs() {
  local dest=$1; shift
  local f
  for f in "$@"; do ldd "$f" 2>/dev/null || true; done |
    awk '/ => not found/ {print "make_bundle: unresolved " $1 > "/dev/stderr"; bad=1}
         / => \// {print $1, $3} END {exit bad}' |
    grep -Ev '^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|ld-linux[^ ]*)\.so' |
    sort -u | while read -r name path; do cp -L "$path" "$dest/$name"; done
}
copy_libs "$SB/lib" "$SB"/libexec/* "$SB"/plugin/*.so "$SB"/lib/libmariadb3/plugin/*.so

# Wrappers: LD_LIBRARY_PATH only for the wrapped process, so the system tools
# the benches also run keep the system's libraries.
for b in sluiced sluice-lockbench binlogreader my_print_defaults resolveip; do
  cat > "$SB/bin/$b" <<W
#!/bin/sh
# sluice bench bundle: run the real binary with the bundle's libraries, for this process only
LD_LIBRARY_PATH=$PREFIX/lib exec $PREFIX/libexec/$b "\$@"
W
done
for b in mariadb mariadb-slap mariadb-binlog; do
  cat > "$SB/bin/$b" <<W
#!/bin/sh
# sluice bench bundle: run the real binary with the bundle's libraries and client
# auth plugins (caching_sha2_password for sluiced's root), for this process only
LD_LIBRARY_PATH=$PREFIX/lib MARIADB_PLUGIN_DIR=$PREFIX/lib/libmariadb3/plugin exec $PREFIX/libexec/$b "\$@"
W
done
cat > "$SB/bin/mariadbd" <<W
#!/bin/bash
# sluice bench bundle: Debian's mariadbd from a relocated prefix. Options that
# must come first (--no-defaults, --defaults-*) stay first; then the paths of
# this prefix, which later options on the command line override.
lead=()
while [ \$# -gt 0 ]; do
  case "\$1" in
    --no-defaults|--defaults-file=*|--defaults-extra-file=*|--defaults-group-suffix=*|--print-defaults) lead+=("\$1"); shift ;;
    *) break ;;
  esac
done
LD_LIBRARY_PATH=$PREFIX/lib exec $PREFIX/libexec/mariadbd "\${lead[@]}" --basedir=$PREFIX \\
  --character-sets-dir=$PREFIX/share/mysql/charsets --lc-messages-dir=$PREFIX/share/mysql \\
  --plugin-dir=$PREFIX/lib/mysql/plugin "\$@"
W
cat > "$SB/bin/mariadb-install-db" <<W
#!/bin/sh
# sluice bench bundle: the install script with --basedir=$PREFIX, so that it runs
# $PREFIX/bin/my_print_defaults, $PREFIX/bin/resolveip, $PREFIX/sbin/mariadbd (-> the
# mariadbd wrapper) and reads $PREFIX/share/mysql/*.sql. --force: no failure when
# the host name does not resolve. No LD_LIBRARY_PATH here: the script also
# runs the system's sed, cat, chown.
exec $PREFIX/libexec/mariadb-install-db --basedir=$PREFIX --force "\$@"
W
chmod 755 "$SB"/bin/*
ln -s mariadb-install-db "$SB/bin/mysql_install_db"
ln -s ../bin/mariadbd "$SB/sbin/mariadbd"

# perf and its libraries, for prof.sh; the device image has no perf.
mkdir -p "$STAGE/perf/lib"
cp /usr/bin/perf "$STAGE/perf/"
copy_libs "$STAGE/perf/lib" /usr/bin/perf

OUT=$STAGE/out
mkdir -p "$OUT"
TAR=(tar --sort=name --owner=0 --group=0 --numeric-owner)
echo "make_bundle: compressing (xz -9, a minute or two)"
"${TAR[@]}" -C "$SB" -cf - . | xz -9 -T1 > "$OUT/bundle.tar.xz"
"${TAR[@]}" -C "$STAGE/perf" -cf - . | xz -6 -T1 > "$OUT/perf.tar.xz"
# prof.sh swaps this in for libexec/sluiced so that perf can name symbols.
strip --strip-debug -o "$STAGE/sluiced-sym" "$BUILD/bin/sluiced"
xz -6 -T1 -c "$STAGE/sluiced-sym" > "$OUT/sluiced-sym.xz"
cp bench/device/setup.sh bench/device/run.sh bench/device/prof.sh bench/device/ab.sh bench/device/lib.sh \
   bench/device/switches.py "$OUT/"

rm -rf "$OUTDIR"
mv "$OUT" "$OUTDIR"
EXCLUDE=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$EXCLUDE")"
grep -qxF '/.devbundle/' "$EXCLUDE" 2>/dev/null || echo '/.devbundle/' >> "$EXCLUDE"

ls -l "$OUTDIR"
total=$(du -sm "$OUTDIR" | cut -f1)
echo "make_bundle: ${total} MiB in $OUTDIR (what travels must stay under 64 MiB)"
[ "$total" -lt 64 ] || die "too big to carry"
