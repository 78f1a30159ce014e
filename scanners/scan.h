/*
 * scan.h - what scanners/ offers the rest of airlock: the rule set, the
 * compiled engine, findings, the directory walker, and the ways to have
 * bytes scanned in a sandboxed child (a child per thread for airlock scan,
 * a launcher per scanning slot for the service). The service and the
 * commands include this header and no other from scanners/.
 */
#ifndef AIRLOCK_SCAN_H
#define AIRLOCK_SCAN_H

#include "rule.h"
#include "scan_child.h"
#include "scan_engine.h"

#endif
