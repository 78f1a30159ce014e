/*
 * vocab.c - the name tables of kinds, states, verdicts, severities and
 * kept contents; see vocab.h.
 */
#include <stddef.h>
#include <string.h>

#include "vocab.h"

static const char *const kind_names[AL_KIND_MAX] = {
	[AL_KIND_MEMBER] = "member",
	[AL_KIND_AUTO] = "auto",
	[AL_KIND_FILE] = "file",
	[AL_KIND_ARCHIVE] = "archive",
	[AL_KIND_PATCH] = "patch",
	[AL_KIND_MBOX] = "mbox",
	[AL_KIND_BUNDLE] = "bundle",
	[AL_KIND_DIRECTORY] = "directory",
};

static const char *const state_names[AL_STATE_MAX] = {
	[AL_STATE_RECEIVED] = "received",
	[AL_STATE_SCANNING] = "scanning",
	[AL_STATE_HELD] = "held",
	[AL_STATE_APPROVED] = "approved",
	[AL_STATE_REJECTED] = "rejected",
	[AL_STATE_RELEASED] = "released",
	[AL_STATE_EXPIRED] = "expired",
};

static const char *const verdict_names[AL_VERDICT_MAX] = {
	[AL_VERDICT_CLEAN] = "clean",
	[AL_VERDICT_FLAGGED] = "flagged",
	[AL_VERDICT_UNSCANNABLE] = "unscannable",
};

static const char *const severity_names[AL_SEV_MAX] = {
	[AL_SEV_INFO] = "info",
	[AL_SEV_LOW] = "low",
	[AL_SEV_MEDIUM] = "medium",
	[AL_SEV_HIGH] = "high",
	[AL_SEV_CRITICAL] = "critical",
};

static const char *const content_names[AL_CONTENT_MAX] = {
	[AL_CONTENT_KEPT] = "kept",
	[AL_CONTENT_BINARY] = "binary",
	[AL_CONTENT_PARTIAL] = "partial",
	[AL_CONTENT_MEMBER_CAP] = "over-member-cap",
	[AL_CONTENT_ARTIFACT_CAP] = "over-artifact-cap",
};

/* The index of name in names[first..n), or -1. */
static int
lookup(const char *const *names, int first, int n, const char *name)
{
	int i;

	if (name == NULL)
		return -1;
	for (i = first; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

const char *
al_kind_name(enum al_kind k)
{
	return (unsigned)k < AL_KIND_MAX ? kind_names[k] : "?";
}

int
al_kind_parse(const char *name)
{
	return lookup(kind_names, AL_KIND_AUTO, AL_KIND_MAX, name);
}

int
al_kind_submittable(int k)
{
	return k >= AL_KIND_AUTO && k <= AL_KIND_BUNDLE;
}

const char *
al_state_name(enum al_state s)
{
	return (unsigned)s < AL_STATE_MAX ? state_names[s] : "?";
}

int
al_state_parse(const char *name)
{
	return lookup(state_names, 0, AL_STATE_MAX, name);
}

const char *
al_verdict_name(enum al_verdict v)
{
	return v >= 0 && v < AL_VERDICT_MAX ? verdict_names[v] : NULL;
}

int
al_verdict_parse(const char *name)
{
	return lookup(verdict_names, 0, AL_VERDICT_MAX, name);
}

const char *
al_severity_name(enum al_severity s)
{
	return s >= 0 && s < AL_SEV_MAX ? severity_names[s] : NULL;
}

int
al_severity_parse(const char *name)
{
	return lookup(severity_names, 0, AL_SEV_MAX, name);
}

const char *
al_content_name(enum al_content c)
{
	return c > AL_CONTENT_NONE && c < AL_CONTENT_MAX ? content_names[c] :
	    NULL;
}

int
al_content_parse(const char *name)
{
	return lookup(content_names, AL_CONTENT_KEPT, AL_CONTENT_MAX, name);
}
