package io.strata.distribution;

import java.io.DataInputStream;
import java.io.IOException;

/**
 * A class file's constant pool (JVMS 4.4), read far enough for the tests that look for
 * configuration keys in class files without loading them: the UTF-8 entries and, for each String
 * entry, the index of its UTF-8 entry. The stream is left just after the pool.
 */
final class ConstantPool {
  final String[] utf8;
  final int[] stringIndex;

  private ConstantPool(String[] utf8, int[] stringIndex) {
    this.utf8 = utf8;
    this.stringIndex = stringIndex;
  }

  /** Reads the header and the pool; null if {@code in} is not a class file. */
  static ConstantPool read(DataInputStream in, String where) throws IOException {
    if (in.readInt() != 0xCAFEBABE) {
      return null;
    }
    in.readUnsignedShort();
    in.readUnsignedShort();
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    int[] stringIndex = new int[count];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1: // Utf8
          utf8[i] = in.readUTF();
          break;
        case 8: // String
          stringIndex[i] = in.readUnsignedShort();
          break;
        case 7: case 16: case 19: case 20: // Class, MethodType, Module, Package
          in.readUnsignedShort();
          break;
        case 15: // MethodHandle
          in.readUnsignedByte();
          in.readUnsignedShort();
          break;
        case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
          in.readInt();
          break;
        case 5: case 6: // Long, Double: two slots
          in.readLong();
          i++;
          break;
        default:
          throw new IOException("constant pool tag " + tag + " in " + where);
      }
    }
    return new ConstantPool(utf8, stringIndex);
  }
}
