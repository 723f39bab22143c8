// SPDX-License-Identifier: GPL-2.0
/*
 * A tiny /init for booting test kernels in QEMU.
 *
 * It mounts proc, sysfs and devtmpfs, prints a banner with uname, lists
 * the platform drivers that registered, and checks them against the
 * comma-separated list given as "expect=" on the kernel command line.
 * It prints one verdict line, "BOOT: PASS" or "BOOT: FAIL ...", which the
 * boot runner waits for, then powers the machine off.
 *
 * Built statically with arm-linux-gnueabi-gcc: glibc's static armel code
 * needs CONFIG_KUSER_HELPERS=y.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define DRIVERS "/sys/bus/platform/drivers"

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		printf("init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* The value of @key= on the kernel command line, or "" */
static char *cmdline_value(const char *key, char *buf, size_t size)
{
	FILE *f = fopen("/proc/cmdline", "r");
	char line[4096], *tok, *save;
	size_t len = strlen(key);

	buf[0] = '\0';
	if (!f)
		return buf;
	if (fgets(line, sizeof(line), f)) {
		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save)) {
			if (!strncmp(tok, key, len) && tok[len] == '=') {
				snprintf(buf, size, "%s", tok + len + 1);
				break;
			}
		}
	}
	fclose(f);
	return buf;
}

static int driver_registered(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), DRIVERS "/%s", name);
	return !stat(path, &st);
}

static void list_drivers(void)
{
	DIR *d = opendir(DRIVERS);
	struct dirent *e;
	int n = 0;

	if (!d) {
		printf("init: %s: %s\n", DRIVERS, strerror(errno));
		return;
	}
	printf("init: platform drivers:");
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		printf(" %s", e->d_name);
		n++;
	}
	printf("\ninit: %d platform drivers\n", n);
	closedir(d);
}

int main(void)
{
	char expect[2048], missing[2048] = "", *tok, *save;
	struct utsname u;

	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("devtmpfs", "/dev", "devtmpfs");

	if (!uname(&u))
		printf("init: %s %s %s %s\n", u.sysname, u.release, u.version,
		       u.machine);
	list_drivers();

	cmdline_value("expect", expect, sizeof(expect));
	for (tok = strtok_r(expect, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (driver_registered(tok))
			continue;
		strncat(missing, " ", sizeof(missing) - strlen(missing) - 1);
		strncat(missing, tok, sizeof(missing) - strlen(missing) - 1);
	}
	if (missing[0])
		printf("BOOT: FAIL missing drivers:%s\n", missing);
	else
		printf("BOOT: PASS\n");
	fflush(stdout);

	sync();
	reboot(RB_POWER_OFF);
	/* if power off is not possible, panic=-1 and -no-reboot end QEMU */
	return missing[0] ? 1 : 0;
}
