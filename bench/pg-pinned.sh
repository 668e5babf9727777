#!/bin/bash
# The PostgreSQL scenario's one- and two-process rows with the server and the clients on different cores: pins every
# process of the local PostgreSQL server to core 0 (its new backends inherit that from the postmaster) and
# bench/pg-scaling.js with its consumer processes to core 1, then restores the server's affinity as it found it.
# Run as a user allowed to change the server's affinity (root here). Not part of `npm run bench`: it repins the
# machine's one server, which other users of it would feel.
set -u
found=$(taskset -p "$(pgrep -o -x postgres)" | awk '{print $NF}')
restore() { for p in $(pgrep -x postgres); do taskset -a -p "$found" "$p" >/dev/null; done; echo "server affinity restored to $found"; }
trap restore EXIT
for p in $(pgrep -x postgres); do taskset -a -p 1 "$p" >/dev/null; done
PG_SCALING_RUNS="${PG_SCALING_RUNS:-5}" PG_SCALING_SYSTEMS="${PG_SCALING_SYSTEMS:-library-1,graphile-1,library-2,graphile-2}" \
  taskset 2 node "$(dirname "$0")/pg-scaling.js"
