// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <srtp2/srtp.h>
