package io.strata.rdma.transport;

import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The transports Strata ships, each named by its factory's class. The factories are loaded by
 * name, so that a transport whose jar is absent (the verbs transport without strata-native) is
 * reported as unavailable instead of failing to link. A third transport is one
 * {@link TransportFactory} and one constant here; a configuration may also name a factory class
 * directly. Immutable; thread-safe.
 */
public enum SupportedTransport {
  /** In-process, for hosts without an RDMA device (module strata-rdma-transport). */
  LOOPBACK("io.strata.rdma.loopback.LoopbackTransportFactory", "strata-rdma-transport"),
  /** Strata's native endpoint runtime over rdma-core, through JNI (module strata-native). */
  VERBS("io.strata.rdma.verbs.VerbsTransportFactory", "strata-native");

  private final String factoryClassName;
  private final String artifact;

  SupportedTransport(String factoryClassName, String artifact) {
    this.factoryClassName = factoryClassName;
    this.artifact = artifact;
  }

  /** The class of this transport's {@link TransportFactory}. */
  public String factoryClassName() {
    return factoryClassName;
  }

  /** The name configurations use: {@code loopback}, {@code verbs}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The constant named {@code value} in any case (surrounding blanks ignored), else null. */
  public static SupportedTransport valueOfIgnoreCase(String value) {
    String v = value.trim();
    for (SupportedTransport t : values()) {
      if (t.name().equalsIgnoreCase(v)) {
        return t;
      }
    }
    return null;
  }

  /** The configuration names of all constants, e.g. {@code loopback, verbs}. */
  public static String choices() {
    return Arrays.stream(values()).map(SupportedTransport::configName)
      .collect(Collectors.joining(", "));
  }

  /**
   * The factory class {@code value} names: a constant's name (any case) or the fully qualified
   * name of a {@link TransportFactory} class.
   *
   * @throws IllegalArgumentException naming the value and the choices when it is neither
   */
  public static String factoryClassName(String value) {
    SupportedTransport t = valueOfIgnoreCase(value);
    if (t != null) {
      return t.factoryClassName;
    }
    String v = value.trim();
    if (isClassName(v)) {
      return v;
    }
    throw new IllegalArgumentException("'" + v + "' is not a transport; use " + choices()
      + " or the class name of a " + TransportFactory.class.getName());
  }

  /**
   * A new instance of the factory {@code value} names (see {@link #factoryClassName(String)}).
   *
   * @throws IllegalArgumentException when {@code value} names no transport
   * @throws TransportUnavailableException when the factory class is not on the class path, is
   *     not a {@link TransportFactory} or cannot be instantiated (the message says which)
   */
  public static TransportFactory newFactory(String value) throws TransportUnavailableException {
    String className = factoryClassName(value);
    SupportedTransport known = valueOfIgnoreCase(value);
    Class<?> c;
    try {
      c = Class.forName(className, true, SupportedTransport.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new TransportUnavailableException(className + " is not on the classpath"
        + (known == null ? "" : "; add the " + known.artifact + " jar"), e);
    } catch (LinkageError e) {
      throw new TransportUnavailableException(className + " cannot be loaded: " + e, e);
    }
    if (!TransportFactory.class.isAssignableFrom(c)) {
      throw new TransportUnavailableException(className + " is not a "
        + TransportFactory.class.getName());
    }
    try {
      return c.asSubclass(TransportFactory.class).getConstructor().newInstance();
    } catch (InvocationTargetException e) {
      throw new TransportUnavailableException("cannot create " + className + ": " + e.getCause(),
        e.getCause());
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new TransportUnavailableException("cannot create " + className + ": " + e, e);
    }
  }

  /** Whether {@code s} reads as a fully qualified Java class name (dotted identifiers). */
  private static boolean isClassName(String s) {
    if (s.indexOf('.') < 0) {
      return false;
    }
    for (String part : s.split("\\.", -1)) {
      if (part.isEmpty() || !Character.isJavaIdentifierStart(part.charAt(0))) {
        return false;
      }
      for (int i = 1; i < part.length(); i++) {
        if (!Character.isJavaIdentifierPart(part.charAt(i))) {
          return false;
        }
      }
    }
    return true;
  }
}
