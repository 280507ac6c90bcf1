package io.strata.upstream.internals;

import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.FileIoProvider;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Each upstream internal of {@code upstream-internals.tsv} is still there, as Strata uses it, in
 * the HBase and Hadoop on this class path (the versions of the parent pom). Run after bumping
 * {@code hbase.version} or {@code hadoop.version}: a failure names the entry and what changed.
 * <ul>
 * <li>patched-class: the members a patch's hunks change or build on, read from the class as the
 * hadoop-hdfs jar has it (the overlay shadows it on the class path), with the same parameter and
 * return types; members marked {@code !} must not exist (the patch adds them).</li>
 * <li>split-package: the Strata class in the upstream package loads and initialises, and every
 * field and method it references in upstream classes resolves with the same descriptor and an
 * access its package allows (package-private members included).</li>
 * <li>reflection: the field or method exists with the type Strata expects and can be made
 * accessible, as Strata does.</li>
 * <li>private-api: the listed signatures exist; the Strata methods marked {@code override:}
 * still override an upstream method with the same parameters; {@code *}: every upstream member
 * the Strata class references resolves.</li>
 * </ul>
 */
@RunWith(Parameterized.class)
public class UpstreamInternalEntries {
  private static final Pattern HDFS_JAR = Pattern.compile(".*/hadoop-hdfs-\\d[^/]*\\.jar!/.*");
  private static final Path ROOT = UpstreamInternal.repoRoot();
  private static final ClassLoader LOADER = UpstreamInternalEntries.class.getClassLoader();
  private static final Map<String, ClassFile> CLASS_FILES = new HashMap<>();

  @Parameters(name = "{0}")
  public static Collection<Object[]> entries() throws IOException {
    List<Object[]> out = new ArrayList<>();
    for (UpstreamInternal e : UpstreamInternal.load()) {
      out.add(new Object[] { e });
    }
    return out;
  }

  private final UpstreamInternal e;
  private final List<String> problems = new ArrayList<>();

  public UpstreamInternalEntries(UpstreamInternal e) {
    this.e = e;
  }

  @Test
  public void stillThere() throws Exception {
    checkUserExists();
    switch (e.kind) {
      case "patched-class":
        checkPatched();
        break;
      case "split-package":
        checkSplitPackage();
        break;
      case "reflection":
        checkReflection();
        break;
      default:
        checkPrivateApi();
        break;
    }
    if (!problems.isEmpty()) {
      fail(e.id + " (" + e.kind + ", " + e.upstream + ", used by " + e.user + ": " + e.why
        + "):\n  " + String.join("\n  ", problems)
        + "\n  See docs/upstream-internals.md for what to do.");
    }
  }

  private void checkUserExists() throws IOException {
    if (e.kind.equals("patched-class")) {
      if (!Files.isRegularFile(ROOT.resolve(e.user))) {
        problems.add("the patch " + e.user + " is not in the repository: update the list");
      }
    } else if (UpstreamInternal.sourceOf(ROOT, e.user) == null) {
      problems.add("Strata class " + e.user + " has no main source file: update the list");
    }
  }

  // patched-class

  private void checkPatched() throws IOException {
    URL url = null;
    for (URL u : Collections.list(LOADER.getResources(resource(e.upstream)))) {
      if (HDFS_JAR.matcher(u.toString()).matches()) {
        url = u;
      }
    }
    if (url == null) {
      problems.add(e.upstream + " is no longer in the hadoop-hdfs jar");
      return;
    }
    ClassFile cf;
    try (InputStream in = url.openStream()) {
      cf = ClassFile.parse(in.readAllBytes());
    }
    for (String m : e.members) {
      checkMember(cf, m, false, "the hadoop-hdfs jar's " + simple(e.upstream));
    }
  }

  // split-package

  private void checkSplitPackage() throws IOException {
    if (!e.user.startsWith(e.upstream + ".")) {
      problems.add(e.user + " is not in the upstream package " + e.upstream);
    }
    Class<?> c = loadAndLink(e.user);
    if (c != null) {
      checkReferences(c);
    }
  }

  // reflection

  private void checkReflection() throws Exception {
    Class<?> c;
    try {
      c = Class.forName(e.upstream, false, LOADER);
    } catch (ClassNotFoundException | LinkageError x) {
      problems.add("Class.forName(\"" + e.upstream + "\") fails: " + x);
      return;
    }
    for (String m : e.members) {
      if (m.equals("-")) {
        continue;
      }
      int paren = m.indexOf('(');
      if (paren < 0) {
        String name = m.substring(0, m.indexOf(':'));
        String type = m.substring(m.indexOf(':') + 1);
        try {
          Field f = c.getDeclaredField(name);
          if (!f.getType().getSimpleName().equals(type)) {
            problems.add("field " + name + " is now of type " + f.getType().getName()
              + ", Strata expects " + type);
          }
          f.setAccessible(true);
        } catch (NoSuchFieldException x) {
          problems.add("field " + name + " is gone from " + e.upstream);
        } catch (RuntimeException x) {
          problems.add("field " + name + " cannot be made accessible: " + x);
        }
      } else {
        String name = m.substring(0, paren);
        List<String> params = params(m);
        String ret = returnOf(m);
        Method found = null;
        for (Method x : c.getDeclaredMethods()) {
          if (x.getName().equals(name) && simpleNames(x.getParameterTypes()).equals(params)) {
            found = x;
          }
        }
        if (found == null) {
          problems.add("method " + m + " is no longer declared in " + e.upstream + "; it has "
            + methodsNamed(c, name));
        } else if (ret != null && !found.getReturnType().getSimpleName().equals(ret)) {
          problems.add(name + " now returns " + found.getReturnType().getName()
            + ", Strata expects " + ret);
        }
      }
    }
    if (e.id.equals("refl.fileio.faultInjectorEventHook") && problems.isEmpty()) {
      // As VolumeStallSwitch does it: its own accessor, then read and replace the hook.
      Class<?> sw = Class.forName(e.user, true, LOADER);
      Field f = (Field) sw.getMethod("faultHookField", String.class).invoke(null, e.id);
      FileIoProvider io = new FileIoProvider(new Configuration(false), null);
      Object hook = f.get(io);
      f.set(io, hook);
      if (hook == null || f.get(io) != hook) {
        problems.add("the hook of a new FileIoProvider could not be read and replaced");
      }
    }
  }

  // private-api

  private void checkPrivateApi() throws IOException {
    ClassFile up = classFile(internal(e.upstream));
    if (up == null) {
      problems.add(e.upstream + " is not on the class path any more");
      return;
    }
    boolean loadable = LOADER.getResource(resource(e.user)) != null;
    Class<?> c = loadable ? loadAndLink(e.user) : null;
    for (String m : e.members) {
      if (m.equals("*")) {
        if (c == null && !loadable) {
          problems.add("'*' needs " + e.user + " on this module's test class path");
        } else if (c != null) {
          checkReferences(c);
        }
      } else if (m.startsWith("override:")) {
        if (!loadable) {
          problems.add("'" + m + "' needs " + e.user + " on this module's test class path");
        } else {
          checkOverride(m.substring("override:".length()));
        }
      } else {
        checkMember(up, m, true, simple(e.upstream));
      }
    }
  }

  private void checkOverride(String name) throws IOException {
    ClassFile strata = classFile(internal(e.user));
    List<ClassFile.Member> mine = new ArrayList<>();
    for (ClassFile.Member m : strata.methods(name)) {
      if ((m.access & (ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC
        | ClassFile.ACC_BRIDGE)) == 0) {
        mine.add(m);
      }
    }
    if (mine.isEmpty()) {
      problems.add(simple(e.user) + " declares no method " + name + " any more: update the list");
    }
    for (ClassFile.Member m : mine) {
      String paramsOnly = m.descriptor.substring(0, m.descriptor.indexOf(')') + 1);
      boolean overrides = false;
      for (ClassFile sup : supertypes(strata)) {
        for (ClassFile.Member u : sup.methods(name)) {
          if (!u.isPrivate() && (u.access & ClassFile.ACC_STATIC) == 0
            && u.descriptor.startsWith(paramsOnly)) {
            overrides = true;
          }
        }
      }
      if (!overrides) {
        problems.add(simple(e.user) + "." + name + ClassFile.parameterSimpleNames(m.descriptor)
          + " no longer overrides anything in " + e.upstream + " or its supertypes: upstream "
          + "renamed it or changed its parameters, so Strata's override would never be called");
      }
    }
  }

  // shared checks

  /** A member spec: name(P1,P2)[:R], name:Type, !name, or "-". */
  private void checkMember(ClassFile cf, String spec, boolean inherited, String where)
    throws IOException {
    if (spec.equals("-")) {
      return;
    }
    List<ClassFile> scope = new ArrayList<>();
    scope.add(cf);
    if (inherited) {
      scope.addAll(supertypes(cf));
    }
    if (spec.startsWith("!")) {
      String name = spec.substring(1);
      if (cf.field(name) != null || !cf.methods(name).isEmpty()) {
        problems.add(where + " now has a member " + name + " of its own: the patch adds one "
          + "with that name; rebase the patch on upstream's");
      }
      return;
    }
    int paren = spec.indexOf('(');
    if (paren < 0) {
      String name = spec.substring(0, spec.indexOf(':'));
      String type = spec.substring(spec.indexOf(':') + 1);
      ClassFile.Member f = null;
      for (ClassFile s : scope) {
        f = f != null ? f : s.field(name);
      }
      if (f == null) {
        problems.add(where + " has no field " + name + " any more");
      } else if (!ClassFile.typeSimpleName(f.descriptor).equals(type)) {
        problems.add(where + "'s field " + name + " is now of type "
          + ClassFile.typeSimpleName(f.descriptor) + " (" + f.descriptor + "), the list says "
          + type);
      }
      return;
    }
    String name = spec.substring(0, paren);
    List<String> params = params(spec);
    String ret = returnOf(spec);
    List<String> seen = new ArrayList<>();
    for (ClassFile s : scope) {
      for (ClassFile.Member m : s.methods(name)) {
        List<String> p = ClassFile.parameterSimpleNames(m.descriptor);
        seen.add(name + p + ":" + ClassFile.returnSimpleName(m.descriptor));
        if (p.equals(params)) {
          if (ret != null && !ClassFile.returnSimpleName(m.descriptor).equals(ret)) {
            problems.add(where + "." + name + params + " now returns "
              + ClassFile.returnSimpleName(m.descriptor) + ", the list says " + ret);
          }
          return;
        }
      }
    }
    problems.add(where + " has no method " + spec + " any more"
      + (seen.isEmpty() ? "" : "; methods of that name now: " + seen));
  }

  private Class<?> loadAndLink(String name) {
    try {
      Class<?> c = Class.forName(name, true, LOADER);
      c.getDeclaredMethods();
      c.getDeclaredFields();
      c.getDeclaredConstructors();
      return c;
    } catch (ClassNotFoundException | LinkageError x) {
      problems.add(name + " does not load and link against this HBase/Hadoop: " + x);
      return null;
    }
  }

  /**
   * Every field and method that {@code c} and its nested and anonymous classes reference in an
   * upstream (org.apache.hadoop, not Strata) class resolves, with the same descriptor, to a
   * member {@code c}'s package may access.
   */
  private void checkReferences(Class<?> c) throws IOException {
    Set<String> nonPublic = new TreeSet<>();
    for (String cls : withNested(c)) {
      ClassFile cf = classFile(internal(cls));
      String pkg = pkg(cf.name);
      for (ClassFile.Ref r : cf.refs) {
        if (!r.owner.startsWith("org/apache/hadoop/") || isStrata(r.owner)) {
          continue;
        }
        ClassFile owner = classFile(r.owner);
        if (owner == null) {
          problems.add(simple(cls) + " references " + r + ", but " + r.owner.replace('/', '.')
            + " is gone");
          continue;
        }
        String[] decl = new String[1];
        ClassFile.Member m = resolve(owner, r, decl);
        if (m == null) {
          problems.add(simple(cls) + " references " + r + ", which " + owner.name
            .replace('/', '.') + " and its supertypes no longer have with that signature");
        } else if (m.isPrivate()) {
          problems.add(simple(cls) + " references " + r + ", which is now private in " + decl[0]);
        } else if (m.isPackagePrivate() && !pkg(decl[0]).equals(pkg)) {
          problems.add(simple(cls) + " references " + r + ", package-private in " + decl[0]
            + ", from another package");
        } else if (m.isPackagePrivate() || (m.access & ClassFile.ACC_PROTECTED) != 0) {
          nonPublic.add(decl[0].replace('/', '.') + "." + m.name + m.descriptor);
        }
      }
    }
    if (!nonPublic.isEmpty()) {
      System.out.println(e.id + ": non-public upstream members used: " + nonPublic);
    }
  }

  private ClassFile.Member resolve(ClassFile owner, ClassFile.Ref r, String[] decl)
    throws IOException {
    List<ClassFile> scope = new ArrayList<>();
    scope.add(owner);
    scope.addAll(supertypes(owner));
    for (ClassFile s : scope) {
      for (ClassFile.Member m : r.field ? s.fields : s.methods) {
        if (m.name.equals(r.name) && m.descriptor.equals(r.descriptor)) {
          decl[0] = s.name;
          return m;
        }
      }
    }
    return null;
  }

  private static List<ClassFile> supertypes(ClassFile cf) throws IOException {
    List<ClassFile> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Deque<String> todo = new ArrayDeque<>();
    if (cf.superName != null) {
      todo.add(cf.superName);
    }
    todo.addAll(cf.interfaces);
    while (!todo.isEmpty()) {
      String n = todo.poll();
      if (!seen.add(n)) {
        continue;
      }
      ClassFile s = classFile(n);
      if (s == null) {
        continue;
      }
      out.add(s);
      if (s.superName != null) {
        todo.add(s.superName);
      }
      todo.addAll(s.interfaces);
    }
    return out;
  }

  private static List<String> withNested(Class<?> c) {
    List<String> out = new ArrayList<>();
    Deque<Class<?>> todo = new ArrayDeque<>();
    todo.add(c);
    while (!todo.isEmpty()) {
      Class<?> k = todo.poll();
      out.add(k.getName());
      Collections.addAll(todo, k.getDeclaredClasses());
      for (int i = 1; LOADER.getResource(resource(k.getName() + "$" + i)) != null; i++) {
        out.add(k.getName() + "$" + i);
      }
    }
    return out;
  }

  /** The class file the class path has first for an internal name, or null. */
  private static synchronized ClassFile classFile(String internalName) throws IOException {
    if (CLASS_FILES.containsKey(internalName)) {
      return CLASS_FILES.get(internalName);
    }
    ClassFile cf = null;
    try (InputStream in = LOADER.getResourceAsStream(internalName + ".class")) {
      if (in != null) {
        cf = ClassFile.parse(in.readAllBytes());
      }
    }
    CLASS_FILES.put(internalName, cf);
    return cf;
  }

  /** Whether a class on the class path comes from Strata (this repository or a strata jar). */
  private static boolean isStrata(String internalName) {
    URL u = LOADER.getResource(internalName + ".class");
    if (u == null) {
      return false;
    }
    String s = u.toString();
    return s.contains(ROOT.toUri().getPath()) || s.matches(".*/strata-[^/]*\\.jar!/.*");
  }

  private static List<String> params(String spec) {
    String inside = spec.substring(spec.indexOf('(') + 1, spec.indexOf(')'));
    List<String> out = new ArrayList<>();
    if (!inside.isEmpty()) {
      Collections.addAll(out, inside.split(","));
    }
    return out;
  }

  private static String returnOf(String spec) {
    int close = spec.indexOf(')');
    return close + 1 < spec.length() && spec.charAt(close + 1) == ':'
      ? spec.substring(close + 2) : null;
  }

  private static List<String> simpleNames(Class<?>[] types) {
    List<String> out = new ArrayList<>();
    for (Class<?> t : types) {
      out.add(t.getSimpleName());
    }
    return out;
  }

  private static List<String> methodsNamed(Class<?> c, String name) {
    List<String> out = new ArrayList<>();
    for (Method m : c.getDeclaredMethods()) {
      if (m.getName().equals(name)) {
        out.add(name + simpleNames(m.getParameterTypes()) + (Modifier.isPublic(m.getModifiers())
          ? "" : " (not public)"));
      }
    }
    return out;
  }

  private static String resource(String className) {
    return className.replace('.', '/') + ".class";
  }

  private static String internal(String className) {
    return className.replace('.', '/');
  }

  private static String pkg(String internalName) {
    return internalName.substring(0, internalName.lastIndexOf('/'));
  }

  private static String simple(String name) {
    return name.substring(name.lastIndexOf('.') + 1);
  }
}
