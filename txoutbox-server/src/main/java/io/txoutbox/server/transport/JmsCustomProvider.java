package io.txoutbox.server.transport;

import io.txoutbox.Redaction;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import jakarta.jms.ConnectionFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A JMS provider other than the bundled Artemis client, named by its {@link ConnectionFactory} class and
 * set up through its setters: {@code connection-factory: {class: ..., properties: {hostName: mq}}} calls
 * {@code setHostName("mq")}, the text converted to the setter's type. Its client jar joins the server's
 * on the class path.
 */
final class JmsCustomProvider {
    /** The server's main class, for the command line a provider's jar joins. */
    private static final String MAIN_CLASS = "io.txoutbox.server.TxoutboxServer";

    /** Property names whose values are never quoted, in errors or anywhere else. */
    private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(password|secret|token|credential|key).*");

    private JmsCustomProvider() {}

    /**
     * Another provider: a public {@link ConnectionFactory} class with a public no-argument constructor,
     * set up through its setters ({@code hostName: mq} calls {@code setHostName("mq")}, converted to the
     * setter's type). Everything is checked here, once, on a factory that is thrown away.
     */
    static JmsTransport.Provider of(ConfigNode c) {
        String className = c.requiredString("class");
        Map<String, String> properties = c.stringMap("properties");
        c.rejectUnknown();
        Class<? extends ConnectionFactory> type = factoryClass(c.key("class"), className);
        Map<String, Method> setters = new LinkedHashMap<>();
        for (String name : properties.keySet()) {
            setters.put(name, setter(c.key("properties") + "." + name, type, name));
        }
        JmsTransport.closeQuietly(newFactory(c, type, properties, setters));
        List<String> names = new ArrayList<>(properties.keySet());
        return new JmsTransport.Provider() {
            @Override
            public ConnectionFactory factory(Duration callTimeout) {
                return newFactory(c, type, properties, setters);
            }

            @Override
            public String describe() {
                // Property names only: their values may hold credentials.
                return type.getName() + (names.isEmpty() ? "" : " " + names);
            }
        };
    }

    private static Class<? extends ConnectionFactory> factoryClass(String key, String className) {
        Class<?> type;
        try {
            type = Class.forName(className.strip(), false, JmsCustomProvider.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(
                    key,
                    "class " + className + " is not on the class path: put the provider's client jar next to the"
                            + " server's (java -cp txoutbox-server.jar:provider.jar " + MAIN_CLASS
                            + " run ...)");
        }
        if (!ConnectionFactory.class.isAssignableFrom(type)) {
            throw new ConfigException(key, "class " + className + " is not a jakarta.jms.ConnectionFactory");
        }
        if (!Modifier.isPublic(type.getModifiers()) || Modifier.isAbstract(type.getModifiers())) {
            throw new ConfigException(key, "class " + className + " is not a public, concrete class");
        }
        return type.asSubclass(ConnectionFactory.class);
    }

    private static Method setter(String key, Class<?> type, String property) {
        if (property.isEmpty()) {
            throw new ConfigException(key, "is not a property name");
        }
        String name = "set" + Character.toUpperCase(property.charAt(0)) + property.substring(1);
        Method best = null;
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name)
                    && m.getParameterCount() == 1
                    && !Modifier.isStatic(m.getModifiers())
                    && convertible(m.getParameterTypes()[0])
                    && (best == null || rank(m.getParameterTypes()[0]) < rank(best.getParameterTypes()[0]))) {
                best = m;
            }
        }
        if (best == null) {
            throw new ConfigException(
                    key,
                    type.getName() + " has no public " + name + "(...) taking text, a number, a boolean or an enum");
        }
        return best;
    }

    private static final List<Class<?>> TEXT_TYPES = List.of(
            String.class,
            int.class,
            Integer.class,
            long.class,
            Long.class,
            boolean.class,
            Boolean.class,
            short.class,
            Short.class,
            double.class,
            Double.class,
            float.class,
            Float.class);

    private static boolean convertible(Class<?> t) {
        return TEXT_TYPES.contains(t) || t.isEnum();
    }

    /** Text first, then the narrower number, so that an overloaded setter takes the value as given. */
    private static int rank(Class<?> t) {
        int i = TEXT_TYPES.indexOf(t);
        return i >= 0 ? i : TEXT_TYPES.size();
    }

    private static ConnectionFactory newFactory(
            ConfigNode c,
            Class<? extends ConnectionFactory> type,
            Map<String, String> properties,
            Map<String, Method> setters) {
        ConnectionFactory factory;
        try {
            factory = type.getConstructor().newInstance();
        } catch (NoSuchMethodException e) {
            throw new ConfigException(
                    c.key("class"), "class " + type.getName() + " has no public constructor without arguments");
        } catch (InvocationTargetException e) {
            throw new ConfigException(
                    c.key("class"), "new " + type.getName() + "() failed: " + Transports.reason(e.getCause()));
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new ConfigException(c.key("class"), "new " + type.getName() + "() failed: " + Transports.reason(e));
        }
        for (Map.Entry<String, String> p : properties.entrySet()) {
            String key = c.key("properties") + "." + p.getKey();
            Method setter = setters.get(p.getKey());
            Object value = convert(key, setter.getParameterTypes()[0], p.getKey(), p.getValue());
            try {
                setter.invoke(factory, value);
            } catch (InvocationTargetException e) {
                throw new ConfigException(
                        key,
                        type.getSimpleName() + "." + setter.getName() + " refused the value"
                                + (SECRET_NAME.matcher(p.getKey()).matches()
                                        ? ""
                                        : ": " + Redaction.redact(Transports.reason(e.getCause()))));
            } catch (IllegalAccessException e) {
                throw new ConfigException(key, type.getName() + "." + setter.getName() + " cannot be called");
            }
        }
        return factory;
    }

    private static Object convert(String key, Class<?> t, String property, String text) {
        String v = t == String.class ? text : text.strip();
        String shown = SECRET_NAME.matcher(property).matches() ? "" : ", got '" + v + "'";
        try {
            if (t == String.class) {
                return v;
            }
            if (t == int.class || t == Integer.class) {
                return Integer.valueOf(v);
            }
            if (t == long.class || t == Long.class) {
                return Long.valueOf(v);
            }
            if (t == short.class || t == Short.class) {
                return Short.valueOf(v);
            }
            if (t == double.class || t == Double.class) {
                return Double.valueOf(v);
            }
            if (t == float.class || t == Float.class) {
                return Float.valueOf(v);
            }
        } catch (NumberFormatException e) {
            throw new ConfigException(key, "expected a number (" + t.getSimpleName() + ")" + shown);
        }
        if (t == boolean.class || t == Boolean.class) {
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> Boolean.TRUE;
                case "false", "no", "off" -> Boolean.FALSE;
                default -> throw new ConfigException(key, "expected true or false" + shown);
            };
        }
        for (Object constant : t.getEnumConstants()) {
            if (((Enum<?>) constant).name().equalsIgnoreCase(v)) {
                return constant;
            }
        }
        List<String> names = new ArrayList<>();
        for (Object constant : t.getEnumConstants()) {
            names.add(((Enum<?>) constant).name());
        }
        throw new ConfigException(key, "expected one of " + names + shown);
    }
}
