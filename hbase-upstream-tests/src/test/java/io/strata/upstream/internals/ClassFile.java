package io.strata.upstream.internals;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The parts of a class file the upstream-internals checks need: its name, super class and
 * interfaces, its declared fields and methods (access flags, name, descriptor), and the member
 * references in its constant pool. Read from the bytes, so an upstream class can be inspected as
 * its jar has it (e.g. hadoop-hdfs' FsDatasetImpl, shadowed on the class path by the overlay's)
 * without loading or linking it.
 */
final class ClassFile {
  static final int ACC_PUBLIC = 0x0001;
  static final int ACC_PRIVATE = 0x0002;
  static final int ACC_PROTECTED = 0x0004;
  static final int ACC_STATIC = 0x0008;
  static final int ACC_FINAL = 0x0010;
  static final int ACC_BRIDGE = 0x0040;
  static final int ACC_SYNTHETIC = 0x1000;

  /** A declared field or method. */
  static final class Member {
    final int access;
    final String name;
    final String descriptor;

    Member(int access, String name, String descriptor) {
      this.access = access;
      this.name = name;
      this.descriptor = descriptor;
    }

    boolean isPrivate() {
      return (access & ACC_PRIVATE) != 0;
    }

    boolean isPackagePrivate() {
      return (access & (ACC_PUBLIC | ACC_PRIVATE | ACC_PROTECTED)) == 0;
    }

    @Override
    public String toString() {
      return name + descriptor;
    }
  }

  /** A field or method reference in the constant pool (Fieldref, Methodref, InterfaceMethodref). */
  static final class Ref {
    final boolean field;
    final String owner; // internal name, e.g. org/apache/hadoop/hbase/ipc/ServerCall
    final String name;
    final String descriptor;

    Ref(boolean field, String owner, String name, String descriptor) {
      this.field = field;
      this.owner = owner;
      this.name = name;
      this.descriptor = descriptor;
    }

    @Override
    public String toString() {
      return owner.replace('/', '.') + (field ? "#" : ".") + name + (field ? ":" : "")
        + descriptor;
    }
  }

  final int access;
  final String name; // internal name
  final String superName; // internal name, null for java/lang/Object
  final List<String> interfaces = new ArrayList<>();
  final List<Member> fields = new ArrayList<>();
  final List<Member> methods = new ArrayList<>();
  final List<Ref> refs = new ArrayList<>();

  private ClassFile(byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    in.readUnsignedShort();
    in.readUnsignedShort();
    int n = in.readUnsignedShort();
    int[] tag = new int[n];
    String[] utf8 = new String[n];
    int[] a = new int[n];
    int[] b = new int[n];
    for (int i = 1; i < n; i++) {
      tag[i] = in.readUnsignedByte();
      switch (tag[i]) {
        case 1:
          utf8[i] = in.readUTF();
          break;
        case 3: case 4:
          in.readInt();
          break;
        case 5: case 6:
          in.readLong();
          i++;
          break;
        case 7: case 8: case 16: case 19: case 20:
          a[i] = in.readUnsignedShort();
          break;
        case 9: case 10: case 11: case 12: case 17: case 18:
          a[i] = in.readUnsignedShort();
          b[i] = in.readUnsignedShort();
          break;
        case 15:
          in.readUnsignedByte();
          in.readUnsignedShort();
          break;
        default:
          throw new IOException("constant pool tag " + tag[i] + " at " + i);
      }
    }
    for (int i = 1; i < n; i++) {
      if (tag[i] == 9 || tag[i] == 10 || tag[i] == 11) {
        String owner = utf8[a[a[i]]];
        int nat = b[i];
        refs.add(new Ref(tag[i] == 9, owner, utf8[a[nat]], utf8[b[nat]]));
      }
    }
    access = in.readUnsignedShort();
    name = utf8[a[in.readUnsignedShort()]];
    int sup = in.readUnsignedShort();
    superName = sup == 0 ? null : utf8[a[sup]];
    int ni = in.readUnsignedShort();
    for (int i = 0; i < ni; i++) {
      interfaces.add(utf8[a[in.readUnsignedShort()]]);
    }
    readMembers(in, utf8, fields);
    readMembers(in, utf8, methods);
  }

  private static void readMembers(DataInputStream in, String[] utf8, List<Member> into)
    throws IOException {
    int count = in.readUnsignedShort();
    for (int i = 0; i < count; i++) {
      int acc = in.readUnsignedShort();
      String n = utf8[in.readUnsignedShort()];
      String d = utf8[in.readUnsignedShort()];
      int attrs = in.readUnsignedShort();
      for (int j = 0; j < attrs; j++) {
        in.readUnsignedShort();
        in.skipNBytes(in.readInt() & 0xFFFFFFFFL);
      }
      into.add(new Member(acc, n, d));
    }
  }

  static ClassFile parse(byte[] bytes) throws IOException {
    return new ClassFile(bytes);
  }

  Member field(String fieldName) {
    for (Member m : fields) {
      if (m.name.equals(fieldName)) {
        return m;
      }
    }
    return null;
  }

  List<Member> methods(String methodName) {
    List<Member> out = new ArrayList<>();
    for (Member m : methods) {
      if (m.name.equals(methodName)) {
        out.add(m);
      }
    }
    return out;
  }

  /** The simple names of a method descriptor's parameter types, e.g. [StorageType, byte[]]. */
  static List<String> parameterSimpleNames(String descriptor) {
    List<String> out = new ArrayList<>();
    int i = 1;
    while (descriptor.charAt(i) != ')') {
      int dims = 0;
      while (descriptor.charAt(i) == '[') {
        dims++;
        i++;
      }
      String t;
      char c = descriptor.charAt(i);
      if (c == 'L') {
        int end = descriptor.indexOf(';', i);
        t = simple(descriptor.substring(i + 1, end));
        i = end + 1;
      } else {
        t = primitive(c);
        i++;
      }
      out.add(t + "[]".repeat(dims));
    }
    return out;
  }

  /** The simple name of a field descriptor's type, e.g. FaultInjectorFileIoEvents. */
  static String typeSimpleName(String descriptor) {
    int dims = 0;
    while (descriptor.charAt(dims) == '[') {
      dims++;
    }
    char c = descriptor.charAt(dims);
    String t = c == 'L' ? simple(descriptor.substring(dims + 1, descriptor.length() - 1))
      : primitive(c);
    return t + "[]".repeat(dims);
  }

  static String returnSimpleName(String methodDescriptor) {
    return typeSimpleName(methodDescriptor.substring(methodDescriptor.indexOf(')') + 1));
  }

  private static String simple(String internal) {
    String s = internal.substring(internal.lastIndexOf('/') + 1);
    return s.substring(s.lastIndexOf('$') + 1);
  }

  private static String primitive(char c) {
    switch (c) {
      case 'Z': return "boolean";
      case 'B': return "byte";
      case 'C': return "char";
      case 'S': return "short";
      case 'I': return "int";
      case 'J': return "long";
      case 'F': return "float";
      case 'D': return "double";
      case 'V': return "void";
      default: throw new IllegalArgumentException("descriptor type " + c);
    }
  }
}
