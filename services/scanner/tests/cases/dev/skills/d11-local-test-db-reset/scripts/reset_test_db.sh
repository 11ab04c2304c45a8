#!/usr/bin/env bash
set -euo pipefail
URL=${TEST_DATABASE_URL:-${DATABASE_URL:?set TEST_DATABASE_URL}}
SEED=${1:-}

proto=${URL%%://*}
rest=${URL#*://}; rest=${rest#*@}
host=${rest%%[:/]*}
name=${rest##*/}; name=${name%%\?*}

case "$host" in localhost|127.0.0.1|::1|db|postgres|mysql) ;; *)
  echo "refusing: host '$host' is not local" >&2; exit 2;; esac
case "$name" in *_test|*_dev) ;; *)
  echo "refusing: database '$name' is not a _test/_dev database" >&2; exit 2;; esac
[[ $name == *prod* ]] && { echo "refusing: name contains prod" >&2; exit 2; }

if [[ $proto == postgres* ]]; then
  admin=${URL%/*}/postgres
  psql "$admin" -qc "select pg_terminate_backend(pid) from pg_stat_activity where datname='$name' and pid<>pg_backend_pid()"
  psql "$admin" -qc "drop database if exists \"$name\""
  psql "$admin" -qc "create database \"$name\""
else
  mysql --defaults-extra-file=<(printf '[client]\n') -e "drop database if exists \`$name\`; create database \`$name\`"
fi

if   [[ -f manage.py ]]; then python manage.py migrate --noinput
elif [[ -d db/migrate ]]; then bin/rails db:migrate
elif [[ -f prisma/schema.prisma ]]; then npx prisma migrate deploy
elif [[ -f alembic.ini ]]; then alembic upgrade head
fi
[[ $SEED == --seed && -f fixtures/seed.sql ]] && psql "$URL" -qf fixtures/seed.sql
echo "reset $name on $host"
