// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <speex/speex_resampler.h>
#include <speex/speex_jitter.h>
