# shellcheck shell=bash
# Sourced by the scripts in bin/: where the distribution is, which Java, and the class paths.
#
# Environment an operator may set:
#   JAVA_HOME            the JDK (17 or newer); else java on PATH
#   STRATA_CONF_DIR      a directory with the cluster's hbase-site.xml / core-site.xml /
#                        hdfs-site.xml (else HBASE_CONF_DIR and HADOOP_CONF_DIR are used)
#   STRATA_UPSTREAM_CP   the class path of an existing HBase/Hadoop install to run on instead of
#                        lib/upstream (e.g. "$(hbase classpath)")
#   STRATA_HEAP          heap of the tools (default 1g)
#   STRATA_LOG_DIR, STRATA_PID_DIR   where daemons started by bin/ log and keep pids
#                        (default: $STRATA_HOME/logs, $STRATA_HOME/run)
#   STRATA_LOG_MAX_SIZE, STRATA_LOG_BACKUPS   size cap of a daemon's log file and how many
#                        rolled ones it keeps (default 64MB, 5)

STRATA_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export STRATA_HOME
# shellcheck source-path=SCRIPTDIR source=strata-functions.sh
. "$STRATA_HOME/bin/strata-functions.sh"

if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="$(command -v java || true)"; fi
if [ -z "$JAVA" ] || ! "$JAVA" -version >/dev/null 2>&1; then
  echo "strata: no Java found: set JAVA_HOME to a JDK 17 or newer" >&2; exit 1
fi

STRATA_JVM_OPTS="$(cat "$STRATA_HOME/conf/jvm.options")"
STRATA_LOG_DIR="${STRATA_LOG_DIR:-$STRATA_HOME/logs}"
STRATA_PID_DIR="${STRATA_PID_DIR:-$STRATA_HOME/run}"

# The configuration directories go first, so their site files are the ones Hadoop and HBase read.
strata_conf_cp() {
  local cp=""
  for d in "${STRATA_CONF_DIR:-}" "${HBASE_CONF_DIR:-}" "${HADOOP_CONF_DIR:-}"; do
    [ -n "$d" ] && cp="$cp${cp:+:}$d"
  done
  printf '%s' "$cp"
}

strata_upstream_cp() {
  printf '%s' "${STRATA_UPSTREAM_CP:-$STRATA_HOME/lib/upstream/*:$STRATA_HOME/lib/webapps}"
}

# HBase side (master, RegionServers, HBase tools): Strata's HBase jars, then upstream.
STRATA_HBASE_CP="$STRATA_HOME/lib/hbase/*"
# HDFS side (NameNode, DataNodes, satisfier, movers): the overlay BEFORE hadoop-hdfs, then
# Strata's HDFS jars, then upstream.
STRATA_HDFS_CP="$STRATA_HOME/lib/hdfs-overlay/*:$STRATA_HOME/lib/hdfs/*"
# The operator tools (placement, migrate, mover, tier-mover, satisfier, pcm, undefined-policies,
# rollback-policies, install-check): their one entry point and picocli (lib/tools), then the HDFS
# and HBase sides (the overlay still before hadoop-hdfs), then upstream.
STRATA_TOOLS_CP="$STRATA_HOME/lib/tools/*:$STRATA_HDFS_CP:$STRATA_HBASE_CP"
STRATA_TOOLS_MAIN=io.strata.tools.StrataTools

# Runs a Java main class in the foreground (exec): strata_run SIDE MAIN ARGS...; for SIDE tools,
# MAIN is the tool's command name, run through the tools' entry point.
strata_run() {
  local side="$1" main="$2"; shift 2
  local cp
  case "$side" in
    hbase) cp="$STRATA_HDFS_CP:$STRATA_HBASE_CP" ;;
    hdfs) cp="$STRATA_HDFS_CP" ;;
    tools) cp="$STRATA_TOOLS_CP"; set -- "$main" "$@"; main="$STRATA_TOOLS_MAIN" ;;
    *) echo "strata: unknown side $side" >&2; exit 2 ;;
  esac
  local conf
  conf="$(strata_conf_cp)"
  # Started by strata_daemon start: the daemon's marker, rolling log, GC log and OOM exit.
  STRATA_DAEMON_OPTS=()
  if [ -n "${STRATA_DAEMON_NAME:-}" ]; then
    strata_daemon_opts "$STRATA_DAEMON_NAME" "$STRATA_DAEMON_PID_FILE" "$STRATA_LOG_DIR" || exit 1
    STRATA_DAEMON_OPTS+=(-Dlog4j.configuration="file:$STRATA_HOME/conf/log4j.properties")
    unset STRATA_DAEMON_NAME STRATA_DAEMON_PID_FILE
  fi
  # shellcheck disable=SC2086
  exec "$JAVA" -Xmx"${STRATA_HEAP:-1g}" $STRATA_JVM_OPTS ${STRATA_DAEMON_OPTS[@]+"${STRATA_DAEMON_OPTS[@]}"} \
    -Djava.library.path="$STRATA_HOME/lib/native" \
    -cp "${conf:+$conf:}$cp:$(strata_upstream_cp)" "$main" "$@"
}

# Runs an operator tool in the foreground (exec) through the tools' one entry point, as
# ./strata COMMAND does: strata_tool COMMAND ARGS...
strata_tool() {
  strata_run tools "$@"
}

# Daemon control for a main class: strata_daemon NAME SIDE MAIN start|stop|status|run|foreground
# ARGS... (start runs "$0" STRATA_SELF_ARGS... run ARGS... in the background). Supervised
# through strata-functions.sh: a pid file is trusted only while its process carries the file's
# marker, and stop sends TERM, then KILL after 30 s. foreground is start without the
# background: the daemon's pid file, rolling log, GC log and exit on OutOfMemoryError, in this
# process (exec), for a supervisor that runs it and restarts it when it exits
# (conf/systemd/*.service).
strata_daemon() {
  local name="$1" side="$2" main="$3" action="${4:-}"; shift 4 || shift $#
  local pid_file="$STRATA_PID_DIR/$name.pid" log_file="$STRATA_LOG_DIR/$name.log"
  local out_file="$STRATA_LOG_DIR/$name.out" pid
  case "$action" in
    start)
      mkdir -p "$STRATA_PID_DIR" "$STRATA_LOG_DIR"
      if pid=$(strata_daemon_pid "$pid_file"); then
        echo "$name is already running, pid $pid"; return 0
      fi
      if strata_start_background "$pid_file" "$out_file" env STRATA_DAEMON_NAME="$name" \
          STRATA_DAEMON_PID_FILE="$pid_file" "$0" ${STRATA_SELF_ARGS[@]+"${STRATA_SELF_ARGS[@]}"} \
          run "$@"; then
        sleep 2
      fi
      pid=$STRATA_STARTED_PID
      if strata_pid_is_daemon "$pid" "$pid_file"; then
        echo "$name started, pid $pid, log $log_file (stdout and stderr: $out_file)"
      else
        echo "$name failed to start; last lines of $out_file and $log_file:" >&2
        tail -20 "$out_file" >&2; tail -20 "$log_file" >&2 2>/dev/null || true
        rm -f "$pid_file"; return 1
      fi ;;
    stop)
      if [ ! -f "$pid_file" ]; then echo "$name is not running (no $pid_file)"; return 0; fi
      if pid=$(strata_daemon_pid "$pid_file"); then
        strata_stop_pid "$name" "$pid" "$pid_file" 30 || return 1
        echo "$name stopped (pid $pid)"
      else
        echo "$name was not running (stale pid file $pid_file: pid $(head -c 20 "$pid_file")" \
          "is gone or is not $name; left alone)"
        rm -f "$pid_file"
      fi ;;
    status)
      if pid=$(strata_daemon_pid "$pid_file"); then
        echo "$name is running, pid $pid, log $log_file"
      else
        echo "$name is not running"; return 3
      fi ;;
    run)
      strata_run "$side" "$main" "$@" ;;
    foreground)
      mkdir -p "$STRATA_PID_DIR" "$STRATA_LOG_DIR"
      if pid=$(strata_daemon_pid "$pid_file"); then
        echo "$name is already running, pid $pid (pid file $pid_file): not starting another" >&2
        return 1
      fi
      # exec keeps this process's pid: the JVM is the pid the file names.
      echo "$$" >"$pid_file"
      echo "$name in the foreground, pid $$, log $log_file"
      STRATA_DAEMON_NAME="$name" STRATA_DAEMON_PID_FILE="$pid_file" strata_run "$side" "$main" "$@" ;;
    *)
      echo "usage: $(basename "$0") start|stop|status|run|foreground [options] (run: in the" \
        "foreground, logging to the console; foreground: as start but without leaving, for a" \
        "supervisor such as systemd; $(basename "$0") run --help for the options)" >&2
      return 2 ;;
  esac
}
