/**
 * A real SQS-compatible server for tests: {@link io.txoutbox.harness.sqs.ElasticMqServer} starts ElasticMQ
 * in the test JVM on a free loopback port, with a client of the AWS SDK for Java v2 that talks to it.
 * Needs {@code org.elasticmq:elasticmq-rest-sqs_2.13}, {@code software.amazon.awssdk:sqs} and {@code
 * software.amazon.awssdk:netty-nio-client} on the test class path: the harness declares them
 * optional, so only the projects that start a server take them.
 */
package io.txoutbox.harness.sqs;
