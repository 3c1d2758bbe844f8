/* SPDX-License-Identifier: MIT */
/*
 * The designs: which ops run a host of each enum shr_design.
 */
#include "shrinker_info.h"

extern const struct shr_info_ops shr_info_xarray_ops;
extern const struct shr_info_ops shr_info_nobitmap_ops;
extern const struct shr_info_ops shr_info_prealloc_ops;
extern const struct shr_info_ops shr_info_array_ondemand_ops;
extern const struct shr_info_ops shr_info_flat_ops;
extern const struct shr_info_ops shr_info_indexed_ops;

const struct shr_info_ops *shr_info_ops_for(enum shr_design design)
{
	switch (design) {
	case SHR_DESIGN_XARRAY:
		return &shr_info_xarray_ops;
	case SHR_DESIGN_NOBITMAP:
		return &shr_info_nobitmap_ops;
	case SHR_DESIGN_PREALLOC:
		return &shr_info_prealloc_ops;
	case SHR_DESIGN_ARRAY_ONDEMAND:
		return &shr_info_array_ondemand_ops;
	case SHR_DESIGN_FLAT:
		return &shr_info_flat_ops;
	case SHR_DESIGN_INDEXED:
		return &shr_info_indexed_ops;
	default:
		return NULL;
	}
}
