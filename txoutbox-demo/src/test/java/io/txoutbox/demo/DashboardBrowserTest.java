package io.txoutbox.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard in a real headless Chromium against a running demo: the published count grows, a dead
 * event shows with its reason, a click on its Revive button publishes it, and a screenshot shows the page.
 */
class DashboardBrowserTest {
    static DemoRunner demo;
    static Chromium browser;

    @BeforeAll
    static void start() throws Exception {
        Chromium.executable(); // fails with the install command before anything starts
        demo = DemoRunner.start(0, 10, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        browser = Chromium.launch(1400, 1100);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (demo != null) {
            demo.close();
        }
    }

    @Test
    void dashboard_shows_growing_published_count_and_a_dead_event_whose_revive_button_publishes_it() throws Exception {
        browser.navigate("about:blank");
        browser.navigate(demo.dashboardUrl());

        long first = await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> published(), n -> n > 0);
        await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> published() > first);
        assertThat(browser.eval("location.hash").asText())
                .as("the token left the address bar")
                .isEmpty();
        assertThat(browser.eval("document.getElementById('status').textContent").asText())
                .isEqualTo("running");

        await().ignoreExceptions()
                .atMost(Duration.ofSeconds(30))
                .until(() -> browser.eval("document.querySelectorAll('#dead tbody tr').length")
                                .asInt()
                        > 0);
        String id = browser.eval("document.querySelector('#dead tbody tr').dataset.id")
                .asText();
        assertThat(browser.eval("document.querySelector('#dead tbody tr td.reason').textContent")
                        .asText())
                .contains("HTTP 410");
        assertThat(demo.receiver().accepted(id)).isFalse();

        browser.click("#dead tbody tr[data-id='" + id + "'] button.revive");

        await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> demo.receiver()
                .accepted(id));
        await().ignoreExceptions()
                .atMost(Duration.ofSeconds(10))
                .until(() -> browser.eval("document.querySelectorAll(\"#dead tbody tr[data-id='" + id + "']\").length")
                                .asInt()
                        == 0);
    }

    @Test
    void routes_table_shows_each_brokers_activity() throws Exception {
        browser.navigate("about:blank");
        browser.navigate(demo.dashboardUrl());
        await().ignoreExceptions()
                .atMost(Duration.ofSeconds(30))
                .until(() -> browser.eval(
                                        "Number(document.querySelector(\"#routes tr[data-route='webhook'] td:nth-child(4)\")"
                                                + ".textContent.replace(/[^0-9]/g, ''))")
                                .asLong()
                        > 0);
        assertThat(browser.eval("document.querySelectorAll('#routes tbody tr').length")
                        .asInt())
                .isEqualTo(2);
        assertThat(browser.eval("document.querySelector(\"#routes tr[data-route='webhook'] td.state\").textContent")
                        .asText())
                .isEqualTo("ok");
        assertThat(browser.eval("document.querySelector(\"#routes tr[data-route='log']\").textContent")
                        .asText())
                .contains("log (event ids and types");
    }

    @Test
    void screenshot_shows_the_dashboard() throws Exception {
        browser.navigate("about:blank");
        browser.navigate(demo.dashboardUrl());
        await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> published(), n -> n > 0);
        await().ignoreExceptions()
                .atMost(Duration.ofSeconds(30))
                .until(() -> browser.eval("document.querySelectorAll('#types tbody tr').length")
                                .asInt()
                        >= 4);
        // A few seconds of history, so the chart has lines to draw.
        await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(() -> published() > 150);
        byte[] png = browser.screenshot();
        Path file = Path.of("target", "dashboard.png");
        Files.createDirectories(file.getParent());
        Files.write(file, png);

        assertThat(png.length).as("a real picture, not an empty page").isGreaterThan(30_000);
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        assertThat(image.getWidth()).isEqualTo(1400);
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 7) {
            for (int x = 0; x < image.getWidth(); x += 7) {
                colours.add(image.getRGB(x, y));
            }
        }
        assertThat(colours.size())
                .as("text, cards and a chart make many colours")
                .isGreaterThan(50);
        // The header bar is the dashboard's dark grey (#24292f): the page itself rendered, not an error page.
        assertThat(image.getRGB(5, 5) & 0xFFFFFF).isEqualTo(0x24292f);
    }

    @Test
    void without_a_token_the_page_asks_for_one() throws Exception {
        String url = demo.dashboardUrl();
        browser.navigate(url.substring(0, url.indexOf('#')));
        browser.eval("sessionStorage.clear(); location.reload(); true");
        await().ignoreExceptions().atMost(Duration.ofSeconds(10)).until(() -> !browser.eval(
                        "document.getElementById('login').hidden")
                .asBoolean(true));
        assertThat(browser.eval("document.getElementById('main').hidden").asBoolean())
                .isTrue();
    }

    private static long published() throws Exception {
        String text = browser.eval("document.getElementById('published-total').textContent")
                .asText();
        String digits = text.replaceAll("[^0-9]", "");
        return digits.isEmpty() ? -1 : Long.parseLong(digits);
    }
}
