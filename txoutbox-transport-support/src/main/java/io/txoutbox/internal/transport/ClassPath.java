package io.txoutbox.internal.transport;

/** Whether an optional library is there: an opt-in feature checks at {@code build()} that it can run. */
public final class ClassPath {
    private ClassPath() {}

    /**
     * @param className a class of the optional library
     * @param loadedBy a class of the transport, whose class loader looks for it
     * @return whether the class can be loaded (it is not initialised)
     */
    public static boolean has(String className, Class<?> loadedBy) {
        try {
            Class.forName(className, false, loadedBy.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
