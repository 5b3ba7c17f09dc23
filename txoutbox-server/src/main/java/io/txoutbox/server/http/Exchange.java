package io.txoutbox.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One request and its response, as the admin routes see them: the method, the raw path and query, the
 * request headers, a body read up to a limit, and one response sent at most once.
 */
final class Exchange {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private boolean sent;
    private boolean bodyRead;

    Exchange(Request request, Response response, Callback callback) {
        this.request = request;
        this.response = response;
        this.callback = callback;
    }

    String method() {
        return request.getMethod();
    }

    /** @return the path as sent, still percent-encoded */
    String rawPath() {
        String path = request.getHttpURI().getPath();
        return path == null ? "/" : path;
    }

    /** @return the query as sent, or {@code null} */
    String rawQuery() {
        return request.getHttpURI().getQuery();
    }

    /** @return the first value of a request header, or {@code null} */
    String header(String name) {
        return request.getHeaders().get(name);
    }

    /** Sets a response header (before {@link #send}). */
    void setHeader(String name, String value) {
        response.getHeaders().put(name, value);
    }

    /** @return the declared length of the request body, or -1 when not declared (chunked) */
    long declaredLength() {
        return request.getLength();
    }

    /**
     * Reads the body, at most {@code limit + 1} bytes: one more than allowed tells the caller it is too
     * large without reading the rest. The server's request deadline bounds how long a slow sender can
     * make this wait.
     */
    byte[] body(int limit) throws IOException {
        bodyRead = true;
        try (InputStream in = Content.Source.asInputStream(request)) {
            return in.readNBytes(limit + 1);
        }
    }

    /** Sends the response: status, content type and bytes. */
    void send(int status, String type, byte[] body) {
        sent = true;
        HttpFields.Mutable h = response.getHeaders();
        h.put("Content-Type", type);
        h.put("Content-Length", Long.toString(body.length));
        if (!bodyRead && (request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING))) {
            // A body nobody read (the request was refused before, say without a token) leaves the connection
            // unusable: say so, so that the client does not send its next request on it.
            h.put(HttpHeader.CONNECTION, "close");
        }
        response.setStatus(status);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** @return whether {@link #send} was called */
    boolean sent() {
        return sent;
    }

    /**
     * Ends an exchange whose response could not be sent: Jetty answers or closes the connection. A request
     * whose body stopped arriving (the read timed out) is answered 408, never as a server error.
     */
    void fail(Throwable e) {
        callback.failed(timedOut(e) ? new HttpException.RuntimeException(408, "the request did not arrive whole") : e);
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
        }
        return false;
    }
}
