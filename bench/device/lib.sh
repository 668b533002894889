# bench/device/lib.sh: pieces the device scripts share; sourced by prof.sh
# and ab.sh from the bundle (make_bundle.sh copies it there).

# unxz_to SRC DEST: decompresses SRC into DEST, with Python's lzma where the
# image has no xz(1).
unxz_to() {
  xz -dc "$1" > "$2" 2>/dev/null ||
    python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"
}

# start_slap_server BIN DIR PORT: starts sluiced binary BIN (with the
# bundle's libraries) on DIR/data with the slap rows' settings
# (flush_log_at_trx_commit=2, sync_binlog=0, a 256M buffer pool), waits
# until it answers, and creates slap.t. Sets SP to its pid. With
# SERVER_CPUS set (a taskset list) the server runs confined to those CPUs.
start_slap_server() {
  local bin=$1 dir=$2 port=$3
  LD_LIBRARY_PATH=/opt/sb/lib ${SERVER_CPUS:+taskset -c "$SERVER_CPUS"} "$bin" --datadir="$dir/data" --port="$port" --bind-address=127.0.0.1 \
    --log-error="$dir/err.log" --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=2 --sync-binlog=0 \
    --server-id=1 --max-connections=400 >/dev/null 2>&1 &
  SP=$!
  for _ in $(seq 100); do
    mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot --skip-ssl -e 'select 1' >/dev/null 2>&1 && break
    sleep 0.2
  done
  mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot --skip-ssl \
    -e 'CREATE DATABASE slap; CREATE TABLE slap.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)'
}
