# Strata's jars for the HDFS daemons that need them, and for nothing else: copy to
# $HADOOP_CONF_DIR/shellprofile.d/strata.sh on every HDFS host (Hadoop's Unix Shell Guide: site
# additions as a shell profile). Unlike HADOOP_USER_CLASSPATH_FIRST in hadoop-env.sh, which puts
# HADOOP_CLASSPATH first for every hadoop, hdfs, yarn and mapred command, this adds the overlay
# only before the NameNode's, the DataNodes' and the secondary NameNode's own classes (the
# overlay's patched classes must win over hadoop-hdfs's), and Strata's HDFS jars after them.
# STRATA_HOME: where the tarball is unpacked (default /opt/strata).

hadoop_add_profile strata

function _strata_hadoop_classpath
{
  local home="${STRATA_HOME:-/opt/strata}"
  case "${HADOOP_SUBCMD:-}" in
    namenode|datanode|secondarynamenode)
      hadoop_add_classpath "${home}/lib/hdfs-overlay/*" before
      hadoop_add_classpath "${home}/lib/hdfs/*" after
    ;;
  esac
}
