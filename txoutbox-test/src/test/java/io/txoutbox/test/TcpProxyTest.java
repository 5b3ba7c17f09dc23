package io.txoutbox.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {
    private ServerSocket echo;
    private TcpProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread pump = new Thread(() -> {
                        try (s;
                                InputStream in = s.getInputStream();
                                OutputStream out = s.getOutputStream()) {
                            in.transferTo(out);
                        } catch (IOException ignored) {
                            // The client went away.
                        }
                    });
                    pump.setDaemon(true);
                    pump.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        proxy = new TcpProxy("127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void forwards_then_cuts_then_forwards_again() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "hello")).isEqualTo("hello");
            proxy.cut();
            assertThatThrownBy(() -> roundTrip(s, "lost")).isInstanceOf(IOException.class);
        }
        try (Socket refused = connect()) {
            assertThatThrownBy(() -> roundTrip(refused, "x")).isInstanceOf(IOException.class);
        }
        proxy.restore();
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "again")).isEqualTo("again");
        }
    }

    @Test
    void blackhole_swallows_bytes_until_restored() throws IOException {
        try (Socket s = connect()) {
            proxy.blackhole();
            s.getOutputStream().write("void".getBytes());
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        }
        proxy.restore();
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "back")).isEqualTo("back");
        }
    }

    @Test
    void delay_still_delivers() throws IOException {
        proxy.delay(Duration.ofMillis(50));
        try (Socket s = connect()) {
            assertThat(roundTrip(s, "slow")).isEqualTo("slow");
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(proxy.host(), proxy.port());
        s.setSoTimeout(1_000);
        return s;
    }

    private static String roundTrip(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes());
        s.getOutputStream().flush();
        byte[] buffer = new byte[text.length()];
        int read = 0;
        while (read < buffer.length) {
            int n = s.getInputStream().read(buffer, read, buffer.length - read);
            if (n < 0) {
                throw new IOException("closed by the proxy");
            }
            read += n;
        }
        return new String(buffer);
    }
}
