/*
 * A Kafka cluster for specs: librdkafka's mock cluster (rdkafka_mock.h), which speaks the Kafka
 * protocol on 127.0.0.1, driven by commands on standard input so a spec can create topics and
 * inject the faults of a real cluster. Built by spec/support/backends/kafka.ts with
 * `gcc -O1 -o kafka-mock kafka-mock.c -lrdkafka` (Debian librdkafka-dev).
 *
 * Usage: kafka-mock BROKERS
 * Prints `bootstrap <host:port,...>` once listening, then for each command line `ok` or
 * `error <reason>`. Exits at the end of standard input or on SIGTERM.
 *
 * Commands:
 *   topic NAME PARTITIONS [REPLICAS]  create a topic (topics a producer names are auto-created too); 1 replica
 *                                  unless REPLICAS says more (at most BROKERS)
 *   topic-error NAME ERRCODE       every request about the topic fails with ERRCODE (0 clears it)
 *   down BROKER | up BROKER        a broker (1..BROKERS, or -1 for all) refuses connections, or takes them again
 *   leader NAME PARTITION BROKER   the partition's leader moves to BROKER (a leader election): clients sending
 *                                  to the old leader are told NOT_LEADER_OR_FOLLOWER and must refresh metadata
 *   errors APIKEY ERRCODE...       the next requests of that API (0: Produce), one an ERRCODE, fail with them
 *   rtt BROKER MS                  the broker answers every request MS ms late (0: at once): a broker that hangs
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reply(rd_kafka_resp_err_t err) {
    if (err) printf("error %s\n", rd_kafka_err2str(err));
    else printf("ok\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    int brokers = argc > 1 ? atoi(argv[1]) : 1;
    if (brokers < 1 || brokers > 16) {
        fprintf(stderr, "usage: kafka-mock BROKERS (1 to 16)\n");
        return 2;
    }
    char errstr[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* The handle only hosts the cluster: it connects to nothing itself. */
    rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr));
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
    if (!rk) {
        fprintf(stderr, "rd_kafka_new: %s\n", errstr);
        return 1;
    }
    rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(rk, brokers);
    if (!cluster) {
        fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
        return 1;
    }
    printf("bootstrap %s\n", rd_kafka_mock_cluster_bootstraps(cluster));
    fflush(stdout);

    char line[1024];
    while (fgets(line, sizeof(line), stdin)) {
        char name[512];
        int number, partition, replicas, offset;
        if (sscanf(line, "errors %d %n", &number, &offset) == 1) {
            rd_kafka_resp_err_t errors[64];
            size_t count = 0;
            int used;
            for (char *at = line + offset; count < 64 && sscanf(at, "%d%n", &partition, &used) == 1; at += used)
                errors[count++] = (rd_kafka_resp_err_t)partition;
            rd_kafka_mock_push_request_errors_array(cluster, (int16_t)number, count, errors);
            reply(RD_KAFKA_RESP_ERR_NO_ERROR);
        } else if (sscanf(line, "leader %511s %d %d", name, &partition, &number) == 3) {
            reply(rd_kafka_mock_partition_set_leader(cluster, name, partition, number));
        } else if (sscanf(line, "topic-error %511s %d", name, &number) == 2) {
            rd_kafka_mock_topic_set_error(cluster, name, (rd_kafka_resp_err_t)number);
            reply(RD_KAFKA_RESP_ERR_NO_ERROR);
        } else if (sscanf(line, "topic %511s %d %d", name, &number, &replicas) == 3) {
            reply(rd_kafka_mock_topic_create(cluster, name, number, replicas));
        } else if (sscanf(line, "topic %511s %d", name, &number) == 2) {
            reply(rd_kafka_mock_topic_create(cluster, name, number, 1));
        } else if (sscanf(line, "down %d", &number) == 1) {
            reply(rd_kafka_mock_broker_set_down(cluster, number));
        } else if (sscanf(line, "up %d", &number) == 1) {
            reply(rd_kafka_mock_broker_set_up(cluster, number));
        } else if (sscanf(line, "rtt %d %d", &number, &partition) == 2) {
            reply(rd_kafka_mock_broker_set_rtt(cluster, number, partition));
        } else {
            printf("error unknown command: %s", line);
            fflush(stdout);
        }
    }
    rd_kafka_mock_cluster_destroy(cluster);
    rd_kafka_destroy(rk);
    return 0;
}
