#!/usr/bin/env bash
# Installs (from Debian's packages, when missing) and starts PostgreSQL and Redis on loopback
# for the test suite, then prints the environment the tests read. Source it or eval its output:
#   eval "$(bash scripts/test-services.sh)"
# Idempotent: a server already running is reused.
set -euo pipefail
log() { echo "test-services: $*" >&2; }

need=()
command -v pg_ctlcluster >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

# PostgreSQL: the Debian cluster, listening on loopback only.
version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -q "^$version main$"; then
  log "creating cluster $version/main"
  pg_createcluster "$version" main >&2
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $4}' | grep -q online; then
  log "starting PostgreSQL $version"
  pg_ctlcluster "$version" main start -o "-c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" >&2
fi
port=$(pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $3}')
su postgres -c "psql -p $port -tAc \"SELECT 1 FROM pg_roles WHERE rolname='svc_test'\"" | grep -q 1 ||
  su postgres -c "psql -p $port -qc \"CREATE ROLE svc_test LOGIN SUPERUSER PASSWORD 'svc_test'\"" >&2
su postgres -c "psql -p $port -tAc \"SELECT 1 FROM pg_database WHERE datname='svc_test'\"" | grep -q 1 ||
  su postgres -c "createdb -p $port -O svc_test svc_test" >&2

# Redis: a private instance on a loopback port, no persistence.
redis_port=6390
if ! redis-cli -p "$redis_port" ping >/dev/null 2>&1; then
  log "starting Redis on 127.0.0.1:$redis_port"
  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --daemonize yes >&2
  for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

echo "export TEST_DATABASE_URL=postgres://svc_test:svc_test@127.0.0.1:$port/svc_test"
echo "export TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
