# Strata's `trace` command for hbase-shell 2.4.x running on HBase 2.6 client classes.
#
# hbase-shell 2.4's own `trace` drives HTrace (org.apache.hadoop.hbase.trace.SpanReceiverHost),
# which HBase 2.5 removed in favour of OpenTelemetry (HBASE-22120): loading it stops the whole
# shell. This one loads, and says where tracing went instead of failing later without a reason.
module Shell
  module Commands
    class Trace < Command
      def help
        <<-HELP
HTrace tracing was removed in HBase 2.5; HBase 2.6 traces with OpenTelemetry, switched on per
process with the OpenTelemetry Java agent and hbase.tracing.enabled (HBase reference guide,
"Tracing"). This command is not available.
HELP
      end

      def command(*_args)
        raise ArgumentError, 'trace: HTrace was removed in HBase 2.5; use OpenTelemetry ' \
                             '(see: help "trace")'
      end
    end
  end
end
