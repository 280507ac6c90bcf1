package io.strata.bench.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for the HBase 2.6 client: YCSB 0.17.0 on Maven Central ships no binding for it.
 * It keeps the properties and semantics of YCSB's own HBase bindings so that results compare:
 * one YCSB field is one column in {@code columnfamily}, a record is a row keyed by the YCSB key.
 *
 * <p>Properties: {@code table} (default {@code usertable}; the table named by an operation wins),
 * {@code columnfamily} (required), {@code clientbuffering} (writes and deletes go through a
 * {@link BufferedMutator}, flushed when the buffer fills and at cleanup), {@code writebuffersize}
 * (bytes, default 12 MiB), {@code durability} (a {@link Durability} name, default the table's),
 * {@code hbase.usepagefilter} (default true: scans also carry a {@link PageFilter}) and {@code
 * debug}. Every property whose name starts with {@code hbase.} is copied into the client
 * configuration over the {@code hbase-site.xml} found on the classpath, so a YCSB command line
 * can name the cluster ({@code -p hbase.zookeeper.quorum=...}).
 *
 * <p>YCSB creates one instance per client thread; they share one {@link Connection} per JVM,
 * opened by the first {@link #init()} and closed by the last {@link #cleanup()}. When YCSB runs
 * inside the process that holds the connections, property {@code connection} names one
 * registered with {@link #provideConnection} instead (e.g. one connection per RPC client
 * implementation); the instance uses it and leaves it open. Instances are not thread-safe (YCSB
 * gives each thread its own); the shared and the registered connections are.
 */
public class HBaseClient26 extends DB {
  private static final Logger LOG = LoggerFactory.getLogger(HBaseClient26.class);

  public static final String TABLE = "table";
  public static final String TABLE_DEFAULT = "usertable";
  public static final String COLUMN_FAMILY = "columnfamily";
  public static final String CLIENT_BUFFERING = "clientbuffering";
  public static final String WRITE_BUFFER_SIZE = "writebuffersize";
  public static final long WRITE_BUFFER_SIZE_DEFAULT = 12L << 20;
  public static final String DURABILITY = "durability";
  public static final String USE_PAGE_FILTER = "hbase.usepagefilter";
  public static final String DEBUG = "debug";
  /** The name of a connection given with {@link #provideConnection}, to use instead of one's own. */
  public static final String CONNECTION = "connection";

  private static final Object CONNECTION_LOCK = new Object();
  private static Connection connection;
  private static int references;
  private static final Map<String, Connection> PROVIDED = new ConcurrentHashMap<>();

  private Connection conn;
  private boolean sharedConnection;
  private byte[] family;
  private boolean clientBuffering;
  private long writeBufferSize;
  private Durability durability;
  private boolean usePageFilter;
  private boolean debug;
  private String currentTableName;
  private Table currentTable;
  private BufferedMutator mutator;

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    String familyName = p.getProperty(COLUMN_FAMILY);
    if (familyName == null || familyName.isEmpty()) {
      throw new DBException("No column family: set the '" + COLUMN_FAMILY + "' property");
    }
    family = Bytes.toBytes(familyName);
    clientBuffering = Boolean.parseBoolean(p.getProperty(CLIENT_BUFFERING, "false"));
    debug = Boolean.parseBoolean(p.getProperty(DEBUG, "false"));
    usePageFilter = Boolean.parseBoolean(p.getProperty(USE_PAGE_FILTER, "true"));
    try {
      writeBufferSize = Long.parseLong(
        p.getProperty(WRITE_BUFFER_SIZE, Long.toString(WRITE_BUFFER_SIZE_DEFAULT)).trim());
    } catch (NumberFormatException e) {
      throw new DBException("'" + WRITE_BUFFER_SIZE + "' is not a number of bytes", e);
    }
    String d = p.getProperty(DURABILITY);
    if (d != null) {
      try {
        durability = Durability.valueOf(d.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new DBException("'" + DURABILITY + "' is none of USE_DEFAULT, SKIP_WAL, ASYNC_WAL, "
          + "SYNC_WAL, FSYNC_WAL: " + d, e);
      }
    }

    String provided = p.getProperty(CONNECTION);
    if (provided != null) {
      conn = PROVIDED.get(provided);
      if (conn == null) {
        throw new DBException("No connection '" + provided + "' was provided in this JVM: "
          + "register it with HBaseClient26.provideConnection first");
      }
    } else {
      conn = acquireConnection(clientConfiguration(p));
      sharedConnection = true;
    }
    String name = p.getProperty(TABLE, TABLE_DEFAULT);
    try {
      checkTable(conn, name, familyName);
      useTable(name);
    } catch (IOException | DBException | RuntimeException e) {
      cleanupQuietly();
      throw e instanceof DBException ? (DBException) e
        : new DBException("Cannot open table " + name, e);
    }
  }

  private void checkTable(Connection c, String name, String familyName)
    throws IOException, DBException {
    TableName tn = TableName.valueOf(name);
    try (Admin admin = c.getAdmin()) {
      if (!admin.tableExists(tn)) {
        throw new DBException("Table " + name + " does not exist; create it (with family "
          + familyName + ") before running YCSB");
      }
      TableDescriptor td = admin.getDescriptor(tn);
      if (!td.hasColumnFamily(family)) {
        throw new DBException("Table " + name + " has no column family " + familyName);
      }
    }
  }

  /** The client configuration: the classpath's HBase resources, then every {@code hbase.*} key. */
  static Configuration clientConfiguration(Properties p) {
    Configuration conf = HBaseConfiguration.create();
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith("hbase.")) {
        conf.set(key, p.getProperty(key));
      }
    }
    return conf;
  }

  private static Connection acquireConnection(Configuration conf) throws DBException {
    synchronized (CONNECTION_LOCK) {
      if (connection == null) {
        try {
          connection = ConnectionFactory.createConnection(conf);
        } catch (IOException e) {
          throw new DBException("Cannot connect to HBase", e);
        }
      }
      references++;
      return connection;
    }
  }

  private static void releaseConnection() throws IOException {
    synchronized (CONNECTION_LOCK) {
      if (--references == 0) {
        Connection c = connection;
        connection = null;
        c.close();
      }
    }
  }

  /**
   * Makes {@code c} available to instances whose property {@link #CONNECTION} is {@code name};
   * the caller keeps owning it (instances never close it) and withdraws it when done.
   */
  public static void provideConnection(String name, Connection c) {
    PROVIDED.put(name, c);
  }

  public static void withdrawConnection(String name) {
    PROVIDED.remove(name);
  }

  /** Instances holding the shared connection; 0 when it is closed. */
  static int connectionReferences() {
    synchronized (CONNECTION_LOCK) {
      return references;
    }
  }

  private void useTable(String name) throws IOException {
    if (name.equals(currentTableName)) {
      return;
    }
    closeTable();
    TableName tn = TableName.valueOf(name);
    currentTable = conn.getTable(tn);
    if (clientBuffering) {
      mutator = conn.getBufferedMutator(
        new BufferedMutatorParams(tn).writeBufferSize(writeBufferSize));
    }
    currentTableName = name;
  }

  private void closeTable() throws IOException {
    try {
      if (mutator != null) {
        mutator.close();
      }
    } finally {
      mutator = null;
      try {
        if (currentTable != null) {
          currentTable.close();
        }
      } finally {
        currentTable = null;
        currentTableName = null;
      }
    }
  }

  @Override
  public void cleanup() throws DBException {
    String name = currentTableName;
    try {
      closeTable();
    } catch (IOException e) {
      throw new DBException("Flushing or closing table " + name + " failed", e);
    } finally {
      boolean release = conn != null && sharedConnection;
      conn = null;
      sharedConnection = false;
      if (release) {
        try {
          releaseConnection();
        } catch (IOException e) {
          LOG.warn("Closing the HBase connection failed", e);
        }
      }
    }
  }

  private void cleanupQuietly() {
    try {
      cleanup();
    } catch (DBException e) {
      LOG.warn("Cleanup after a failed init failed", e);
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields,
    Map<String, ByteIterator> result) {
    try {
      useTable(table);
      Get get = new Get(Bytes.toBytes(key));
      if (fields == null) {
        get.addFamily(family);
      } else {
        for (String field : fields) {
          get.addColumn(family, Bytes.toBytes(field));
        }
      }
      Result r = currentTable.get(get);
      if (r.isEmpty()) {
        return Status.NOT_FOUND;
      }
      putCells(r, result);
      if (debug) {
        LOG.info("read {} {}: {} fields", table, key, result.size());
      }
      return Status.OK;
    } catch (IOException e) {
      return error("read", table, key, e);
    }
  }

  @Override
  public Status scan(String table, String startKey, int recordCount, Set<String> fields,
    Vector<HashMap<String, ByteIterator>> result) {
    Scan scan = new Scan().withStartRow(Bytes.toBytes(startKey)).setLimit(recordCount)
      .setCaching(recordCount);
    if (usePageFilter) {
      scan.setFilter(new PageFilter(recordCount));
    }
    if (fields == null) {
      scan.addFamily(family);
    } else {
      for (String field : fields) {
        scan.addColumn(family, Bytes.toBytes(field));
      }
    }
    try {
      useTable(table);
      int rows = 0;
      try (ResultScanner scanner = currentTable.getScanner(scan)) {
        Result r;
        while (rows < recordCount && (r = scanner.next()) != null) {
          HashMap<String, ByteIterator> row = new HashMap<>();
          putCells(r, row);
          result.add(row);
          rows++;
        }
      }
      if (debug) {
        LOG.info("scan {} from {}: {} of {} rows", table, startKey, rows, recordCount);
      }
      return Status.OK;
    } catch (IOException e) {
      return error("scan", table, startKey, e);
    }
  }

  private static void putCells(Result r, Map<String, ByteIterator> out) {
    for (Cell cell : r.rawCells()) {
      out.put(Bytes.toString(CellUtil.cloneQualifier(cell)),
        new ByteArrayByteIterator(CellUtil.cloneValue(cell)));
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    Put put = new Put(Bytes.toBytes(key));
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      put.addColumn(family, Bytes.toBytes(e.getKey()), e.getValue().toArray());
    }
    return mutate("update", table, key, put);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return update(table, key, values);
  }

  @Override
  public Status delete(String table, String key) {
    return mutate("delete", table, key, new Delete(Bytes.toBytes(key)));
  }

  private Status mutate(String op, String table, String key, Mutation m) {
    if (durability != null) {
      m.setDurability(durability);
    }
    try {
      useTable(table);
      if (mutator != null) {
        mutator.mutate(m);
      } else if (m instanceof Put) {
        currentTable.put((Put) m);
      } else {
        currentTable.delete((Delete) m);
      }
      if (debug) {
        LOG.info("{} {} {}{}", op, table, key, mutator != null ? " (buffered)" : "");
      }
      return Status.OK;
    } catch (IOException e) {
      return error(op, table, key, e);
    }
  }

  private Status error(String op, String table, String key, IOException e) {
    if (debug) {
      LOG.warn("{} {} {} failed", op, table, key, e);
    } else {
      LOG.warn("{} {} {} failed: {}", op, table, key, e.toString());
    }
    return Status.ERROR;
  }
}
