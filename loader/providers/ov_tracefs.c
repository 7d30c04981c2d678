// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead, the tracefs event family (ov.h): the gpio:gpio_value event alone, with a
 * filter, a trigger, a hist trigger, the synthetic event of the talk's set-up; kprobe events on
 * gpiod_set_value; and the series of k module events and k kprobes on the module's call chain.
 * All in our tracefs instance ("gpiolat"), dynamic events made with libtracefs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include "modes/overhead/ov.h"
#include "core/sys.h"

int need_instance(char *why)
{
	if (ov_inst)
		return 0;
	snprintf(why, WHY,
		 "no tracefs instance of our own (mkdir %s/instances/" INSTANCE
		 " failed: instances need CONFIG_TRACING)",
		 sys_tracefs_dir() ?: "tracefs");
	return -1;
}

static int ev_setup(const struct method *m, char *why)
{
	if (need_instance(why))
		return -1;
	if (!tracefs_event_file_exists(ov_inst, "gpio", "gpio_value", "enable")) {
		snprintf(why, WHY, "no gpio:gpio_value event (no CONFIG_GPIOLIB?)");
		return -1;
	}
	return 0;
}

static int ev_on(const struct method *m, char *why)
{
	return tracefs_event_enable(ov_inst, "gpio", "gpio_value");
}

static int ev_off(const struct method *m)
{
	return tracefs_event_disable(ov_inst, "gpio", "gpio_value");
}

static char filter_str[64];

static int filter_on(const struct method *m, char *why)
{
	snprintf(filter_str, sizeof(filter_str), "gpio == %u", ov_gpio);
	return tracefs_event_file_write(ov_inst, "gpio", "gpio_value", "filter", filter_str) < 0;
}

static int filter_off(const struct method *m)
{
	return tracefs_event_file_write(ov_inst, "gpio", "gpio_value", "filter", "0") < 0;
}

static int trigger_on(const struct method *m, char *why)
{
	return tracefs_event_file_append(ov_inst, "gpio", "gpio_value", "trigger", "traceon") < 0;
}

static int trigger_off(const struct method *m)
{
	return tracefs_event_file_append(ov_inst, "gpio", "gpio_value", "trigger", "!traceon") < 0;
}

static struct tracefs_hist *hist;

static int hist_setup(const struct method *m, char *why)
{
	if (ev_setup(m, why))
		return -1;
	hist = tracefs_hist_alloc(ov_tep, "gpio", "gpio_value", "value", TRACEFS_HIST_KEY_NORMAL);
	if (!hist || tracefs_hist_start(ov_inst, hist) || tracefs_hist_destroy(ov_inst, hist)) {
		char *log = tracefs_error_last(ov_inst);

		snprintf(why, WHY, "hist triggers do not work here (CONFIG_HIST_TRIGGERS?)%s%s",
			 log ? ": " : "", log ? log : "");
		free(log);
		tracefs_hist_free(hist);
		hist = NULL;
		return -1;
	}
	return 0;
}

static int hist_on(const struct method *m, char *why)
{
	return tracefs_hist_start(ov_inst, hist);
}

static int hist_off(const struct method *m)
{
	return tracefs_hist_destroy(ov_inst, hist);
}

static void hist_teardown(const struct method *m)
{
	tracefs_hist_free(hist);
	hist = NULL;
}

/*
 * The synthetic event gpiolat_pulse(gpio, delta): a hist on gpio_value saves the time of a set
 * to 1, a second one at the set to 0 computes the delta and fires the synthetic event
 * (onmatch().trace()), which has a hist of its own: the talk's set-up. The triggers are written
 * into our instance, not with tracefs_synth_create(), which puts them at the top level where an
 * interrupted run's leftovers could not be told from the user's own triggers.
 */
static struct tracefs_hist *synth_hist;
#define SYNTH_DEF SYNTH_NAME " u32 gpio; u64 delta"
#define SYNTH_START "hist:keys=gpio:gpiolat_t0=common_timestamp if value == 1 && get == 0"
#define SYNTH_END                                                                                           \
	"hist:keys=gpio:gpiolat_dt=common_timestamp-$gpiolat_t0:onmatch(gpio.gpio_value).trace(" SYNTH_NAME \
	",gpio,$gpiolat_dt) if value == 0 && get == 0"
static const char *synth_start = SYNTH_START, *synth_end = SYNTH_END;

static int synth_setup(const struct method *m, char *why)
{
	struct tracefs_dynevent *d;

	if (ev_setup(m, why))
		return -1;
	if (!tracefs_file_exists(NULL, "synthetic_events")) {
		snprintf(why, WHY, "no synthetic_events in tracefs (no CONFIG_SYNTH_EVENTS)");
		return -1;
	}
	if (tracefs_instance_file_append(NULL, "synthetic_events", SYNTH_DEF) < 0) {
		char *log = tracefs_error_last(NULL);

		snprintf(why, WHY, "cannot create the synthetic event '%s'%s%s", SYNTH_DEF,
			 log ? ": " : "", log ? log : "");
		free(log);
		return -1;
	}
	d = tracefs_dynevent_get(TRACEFS_DYNEVENT_SYNTH, NULL, SYNTH_NAME);
	tracefs_dynevent_free(d);
	if (!d) {
		snprintf(why, WHY, "the synthetic event " SYNTH_NAME " did not appear");
		return -1;
	}
	tep_free(ov_tep);
	ov_tep = tracefs_local_events_system(NULL, (const char *[]){ "gpio", "synthetic", NULL });
	synth_hist = ov_tep ? tracefs_hist_alloc(ov_tep, "synthetic", SYNTH_NAME, "delta",
						 TRACEFS_HIST_KEY_NORMAL) :
			      NULL;
	if (!synth_hist) {
		snprintf(why, WHY, "cannot describe the hist of " SYNTH_NAME);
		return -1;
	}
	return 0;
}

static int synth_on(const struct method *m, char *why)
{
	if (tracefs_event_file_append(ov_inst, "gpio", "gpio_value", "trigger", synth_start) < 0 ||
	    tracefs_event_file_append(ov_inst, "gpio", "gpio_value", "trigger", synth_end) < 0 ||
	    tracefs_event_enable(ov_inst, "synthetic", SYNTH_NAME) ||
	    tracefs_hist_start(ov_inst, synth_hist))
		return -1;
	return 0;
}

static int synth_off(const struct method *m)
{
	char buf[1024];
	int err = 0;

	err |= tracefs_hist_destroy(ov_inst, synth_hist);
	err |= tracefs_event_disable(ov_inst, "synthetic", SYNTH_NAME);
	snprintf(buf, sizeof(buf), "!%s", synth_end);
	err |= tracefs_event_file_append(ov_inst, "gpio", "gpio_value", "trigger", buf) < 0;
	snprintf(buf, sizeof(buf), "!%s", synth_start);
	err |= tracefs_event_file_append(ov_inst, "gpio", "gpio_value", "trigger", buf) < 0;
	return err ? -1 : 0;
}

static void synth_teardown(const struct method *m)
{
	struct tracefs_dynevent *d = tracefs_dynevent_get(TRACEFS_DYNEVENT_SYNTH, NULL, SYNTH_NAME);

	if (d)
		tracefs_dynevent_destroy(d, true);
	tracefs_dynevent_free(d);
	tracefs_hist_free(synth_hist);
	synth_hist = NULL;
}

/* kprobe events: gpiolat/gpiolat_gpiod_set_value, gpiolat/gpiolat_chain_1..10 */
static struct tracefs_dynevent *kp[CHAIN + 1];

static int kp_create(int i, const char *ev, const char *addr, char *why)
{
	if (kp[i])
		return 0;
	kp[i] = tracefs_kprobe_alloc(KP_SYSTEM, ev, addr, NULL);
	if (!kp[i] || tracefs_dynevent_create(kp[i])) {
		char *log = tracefs_error_last(NULL);

		snprintf(why, WHY, "cannot create a kprobe event on %s (CONFIG_KPROBE_EVENTS?)%s%s",
			 addr, log ? ": " : "", log ? log : "");
		free(log);
		tracefs_dynevent_free(kp[i]);
		kp[i] = NULL;
		return -1;
	}
	return 0;
}

static void kp_destroy_all(void)
{
	int i;

	for (i = 0; i <= CHAIN; i++) {
		if (!kp[i])
			continue;
		tracefs_dynevent_destroy(kp[i], true);
		tracefs_dynevent_free(kp[i]);
		kp[i] = NULL;
	}
}

static int kprobe_setup(const struct method *m, char *why)
{
	char ev[32], addr[32];
	int i;

	if (need_instance(why))
		return -1;
	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		snprintf(why, WHY, "no kprobe_events in tracefs (no CONFIG_KPROBE_EVENTS)");
		return -1;
	}
	if (!m->series)
		return kp_create(0, "gpiolat_gpiod_set_value", "gpiod_set_value", why);
	for (i = 1; i <= CHAIN; i++) {
		snprintf(ev, sizeof(ev), "gpiolat_chain_%d", i);
		snprintf(addr, sizeof(addr), "toggle_chain_%d", i);
		if (kp_create(i, ev, addr, why))
			return -1;
	}
	return 0;
}

static int kprobe_on(const struct method *m, char *why)
{
	char ev[32];
	int i;

	if (!m->series)
		return tracefs_event_enable(ov_inst, KP_SYSTEM, "gpiolat_gpiod_set_value");
	for (i = 1; i <= m->k; i++) {
		snprintf(ev, sizeof(ev), "gpiolat_chain_%d", i);
		if (tracefs_event_enable(ov_inst, KP_SYSTEM, ev))
			return -1;
	}
	return 0;
}

static int kprobe_off(const struct method *m)
{
	return tracefs_event_disable(ov_inst, KP_SYSTEM, NULL);
}

static void kprobe_teardown(const struct method *m)
{
	/* the series keeps its kprobes from k = 1 to k = 10 */
	if (!m->series || m->k == CHAIN)
		kp_destroy_all();
}

static int events_setup(const struct method *m, char *why)
{
	char ev[32];
	int i;

	if (need_instance(why))
		return -1;
	for (i = 0; i < m->k; i++) {
		snprintf(ev, sizeof(ev), "toggle_ev%d", i);
		if (!tracefs_event_file_exists(ov_inst, "toggle", ev, "enable")) {
			snprintf(why, WHY, "no toggle:%s event (an older toggle module?)", ev);
			return -1;
		}
	}
	return 0;
}

static int events_on(const struct method *m, char *why)
{
	char ev[32];
	int i;

	for (i = 0; i < m->k; i++) {
		snprintf(ev, sizeof(ev), "toggle_ev%d", i);
		if (tracefs_event_enable(ov_inst, "toggle", ev))
			return -1;
	}
	return 0;
}

static int events_off(const struct method *m)
{
	return tracefs_event_disable(ov_inst, "toggle", "toggle_ev.*");
}

const struct method_ops ev_ops = { .setup = ev_setup, .on = ev_on, .off = ev_off };
const struct method_ops filter_ops = { .setup = ev_setup, .on = filter_on, .off = filter_off };
const struct method_ops trigger_ops = { .setup = ev_setup, .on = trigger_on, .off = trigger_off };
const struct method_ops hist_ops = { .setup = hist_setup,
				     .on = hist_on,
				     .off = hist_off,
				     .teardown = hist_teardown };
const struct method_ops synth_ops = { .setup = synth_setup,
				      .on = synth_on,
				      .off = synth_off,
				      .teardown = synth_teardown };
const struct method_ops kprobe_ops = { .setup = kprobe_setup,
				       .on = kprobe_on,
				       .off = kprobe_off,
				       .teardown = kprobe_teardown };
const struct method_ops events_ops = { .setup = events_setup, .on = events_on, .off = events_off };
