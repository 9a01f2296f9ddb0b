/* The OpenMP 5.1 specification's names of ompt_state_t values, without
 * the "ompt_state_" prefix: shared by the OpenMP plugin's analysis and its
 * C benchmark programs (no OMPT header needed). */
#pragma once

#include <stdint.h>

static inline const char* ompt_state_label(uint32_t state) {
  switch (state) {
    case 0x000: return "work_serial";
    case 0x001: return "work_parallel";
    case 0x002: return "work_reduction";
    case 0x010: return "wait_barrier";
    case 0x011: return "wait_barrier_implicit_parallel";
    case 0x012: return "wait_barrier_implicit_workshare";
    case 0x013: return "wait_barrier_implicit";
    case 0x014: return "wait_barrier_explicit";
    case 0x015: return "wait_barrier_implementation";
    case 0x016: return "wait_barrier_teams";
    case 0x020: return "wait_taskwait";
    case 0x021: return "wait_taskgroup";
    case 0x040: return "wait_mutex";
    case 0x041: return "wait_lock";
    case 0x042: return "wait_critical";
    case 0x043: return "wait_atomic";
    case 0x044: return "wait_ordered";
    case 0x080: return "wait_target";
    case 0x081: return "wait_target_map";
    case 0x082: return "wait_target_update";
    case 0x100: return "idle";
    case 0x101: return "overhead";
    case 0x102: return "undefined";
  }
  return "unknown";
}
