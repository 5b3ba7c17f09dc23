package io.txoutbox.build;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link InternalApiCheck} needs of one class file (JVM specification, chapter 4): its access
 * flags, names, supertypes and generic signature, its fields and methods with their descriptors,
 * generic signatures and thrown types, and, for a nested class, its declared access and the class it is
 * declared in. Everything else (code, annotations, other attributes) is skipped unread.
 *
 * @param access the class's access flags as the class file has them ({@code ACC_PUBLIC} or none for
 *     a nested class, whatever its declaration says)
 * @param name the class's internal name ({@code io/txoutbox/kafka/KafkaPublisher$Builder})
 * @param superName its superclass's internal name, {@code null} for {@code java/lang/Object}
 * @param interfaces its interfaces' internal names
 * @param signature its generic signature, {@code null} if it has none
 * @param fields its fields
 * @param methods its methods and constructors
 * @param nested whether the class is nested, local or anonymous (it has an {@code InnerClasses} entry of
 *     its own)
 * @param nestedAccess a nested class's access flags as declared ({@code ACC_PROTECTED}, {@code
 *     ACC_PRIVATE} included), 0 if not nested
 * @param outer the internal name of the class a member class is declared in, {@code null} if the class
 *     is top-level, local or anonymous
 */
record ClassFile(
        int access,
        String name,
        String superName,
        List<String> interfaces,
        String signature,
        List<Member> fields,
        List<Member> methods,
        boolean nested,
        int nestedAccess,
        String outer) {

    static final int ACC_PUBLIC = 0x0001;
    static final int ACC_PRIVATE = 0x0002;
    static final int ACC_PROTECTED = 0x0004;
    static final int ACC_SYNTHETIC = 0x1000;

    /**
     * A field or a method.
     *
     * @param access its access flags
     * @param name its name ({@code <init>} for a constructor)
     * @param descriptor its erased type ({@code (Lio/txoutbox/spi/Router;)Ljava/lang/Object;})
     * @param signature its generic signature, {@code null} if it has none
     * @param exceptions the internal names of the types a method declares it throws
     */
    record Member(int access, String name, String descriptor, String signature, List<String> exceptions) {}

    /**
     * @param bytes a class file
     * @return what it declares
     * @throws IOException if the bytes are not a class file this reader understands
     */
    static ClassFile read(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file (no 0xCAFEBABE magic)");
        }
        in.skipNBytes(4); // minor and major version
        ConstantPool pool = ConstantPool.read(in);
        int access = in.readUnsignedShort();
        String name = pool.className(in.readUnsignedShort());
        String superName = pool.className(in.readUnsignedShort());
        List<String> interfaces = new ArrayList<>();
        for (int i = in.readUnsignedShort(); i > 0; i--) {
            interfaces.add(pool.className(in.readUnsignedShort()));
        }
        List<Member> fields = members(in, pool);
        List<Member> methods = members(in, pool);
        String signature = null;
        boolean nested = false;
        int nestedAccess = 0;
        String outer = null;
        for (int a = in.readUnsignedShort(); a > 0; a--) {
            String attribute = pool.utf8(in.readUnsignedShort());
            int length = in.readInt();
            if (attribute.equals("Signature")) {
                signature = pool.utf8(in.readUnsignedShort());
            } else if (attribute.equals("InnerClasses")) {
                // Entries for this class's own nesting, its member classes and every nested class it names.
                for (int i = in.readUnsignedShort(); i > 0; i--) {
                    String inner = pool.className(in.readUnsignedShort());
                    String declaredIn = pool.className(in.readUnsignedShort());
                    in.skipNBytes(2); // simple name
                    int flags = in.readUnsignedShort();
                    if (name.equals(inner)) {
                        nested = true;
                        nestedAccess = flags;
                        outer = declaredIn;
                    }
                }
            } else {
                in.skipNBytes(length);
            }
        }
        return new ClassFile(
                access,
                name,
                superName,
                List.copyOf(interfaces),
                signature,
                fields,
                methods,
                nested,
                nestedAccess,
                outer);
    }

    private static List<Member> members(DataInputStream in, ConstantPool pool) throws IOException {
        List<Member> members = new ArrayList<>();
        for (int m = in.readUnsignedShort(); m > 0; m--) {
            int access = in.readUnsignedShort();
            String name = pool.utf8(in.readUnsignedShort());
            String descriptor = pool.utf8(in.readUnsignedShort());
            String signature = null;
            List<String> exceptions = new ArrayList<>();
            for (int a = in.readUnsignedShort(); a > 0; a--) {
                String attribute = pool.utf8(in.readUnsignedShort());
                int length = in.readInt();
                if (attribute.equals("Signature")) {
                    signature = pool.utf8(in.readUnsignedShort());
                } else if (attribute.equals("Exceptions")) {
                    for (int i = in.readUnsignedShort(); i > 0; i--) {
                        exceptions.add(pool.className(in.readUnsignedShort()));
                    }
                } else {
                    in.skipNBytes(length);
                }
            }
            members.add(new Member(access, name, descriptor, signature, List.copyOf(exceptions)));
        }
        return List.copyOf(members);
    }

    /** The constant pool's texts and class names; every other constant is skipped. */
    private static final class ConstantPool {
        private final String[] utf8;
        private final int[] classNames;

        private ConstantPool(int count) {
            utf8 = new String[count];
            classNames = new int[count];
        }

        static ConstantPool read(DataInputStream in) throws IOException {
            ConstantPool pool = new ConstantPool(in.readUnsignedShort());
            for (int i = 1; i < pool.utf8.length; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> pool.utf8[i] = in.readUTF(); // u2 length and modified UTF-8, as readUTF reads
                    case 7 -> pool.classNames[i] = in.readUnsignedShort();
                    case 8, 16, 19, 20 -> in.skipNBytes(2); // String, MethodType, Module, Package
                    case 15 -> in.skipNBytes(3); // MethodHandle
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4); // numbers, references, (Invoke)Dynamic
                    case 5, 6 -> {
                        in.skipNBytes(8);
                        i++; // a Long or a Double takes two entries
                    }
                    default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
                }
            }
            return pool;
        }

        String utf8(int index) throws IOException {
            if (index <= 0 || index >= utf8.length || utf8[index] == null) {
                throw new IOException("constant pool entry " + index + " is not a text");
            }
            return utf8[index];
        }

        /** @return the class name at {@code index}, {@code null} for index 0 (no class) */
        String className(int index) throws IOException {
            if (index == 0) {
                return null;
            }
            if (index >= classNames.length || classNames[index] == 0) {
                throw new IOException("constant pool entry " + index + " is not a class");
            }
            return utf8(classNames[index]);
        }
    }
}
