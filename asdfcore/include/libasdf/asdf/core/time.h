/* time/time values (as they appear in history entries). */
#ifndef FITSASDF_LIBASDF_CORE_TIME_H
#define FITSASDF_LIBASDF_CORE_TIME_H

#include <time.h>

#include <asdf/extension.h>
#include <asdf/util.h>

ASDF_BEGIN_DECLS

#define ASDF_CORE_TIME_TAG_BASE "tag:stsci.edu:asdf/time/time-"
#define ASDF_CORE_TIME_TAG ASDF_CORE_TIME_TAG_BASE "1.4.0"
#define ASDF_TIME_TIMESTR_MAXLEN 255

typedef enum {
    ASDF_TIME_FORMAT_ISO = 0,
    ASDF_TIME_FORMAT_YDAY,
    ASDF_TIME_FORMAT_BYEAR,
    ASDF_TIME_FORMAT_JYEAR,
    ASDF_TIME_FORMAT_DECIMALYEAR,
    ASDF_TIME_FORMAT_JD,
    ASDF_TIME_FORMAT_MJD,
    ASDF_TIME_FORMAT_GPS,
    ASDF_TIME_FORMAT_UNIX,
    ASDF_TIME_FORMAT_UTIME,
    ASDF_TIME_FORMAT_TAI_SECONDS,
    ASDF_TIME_FORMAT_CXCSEC,
    ASDF_TIME_FORMAT_GALEXSEC,
    ASDF_TIME_FORMAT_UNIX_TAI,
    ASDF_TIME_FORMAT_RESERVED1,
    ASDF_TIME_FORMAT_BYEAR_STR,
    ASDF_TIME_FORMAT_DATETIME,
    ASDF_TIME_FORMAT_FITS,
    ASDF_TIME_FORMAT_ISOT,
    ASDF_TIME_FORMAT_JYEAR_STR,
    ASDF_TIME_FORMAT_PLOT_DATE,
    ASDF_TIME_FORMAT_YMDHMS,
    ASDF_TIME_FORMAT_DATETIME64
} asdf_time_format_t;

typedef enum {
    ASDF_TIME_SCALE_UTC = 0,
    ASDF_TIME_SCALE_TAI,
    ASDF_TIME_SCALE_TCB,
    ASDF_TIME_SCALE_TCG,
    ASDF_TIME_SCALE_TDB,
    ASDF_TIME_SCALE_TT,
    ASDF_TIME_SCALE_UT1
} asdf_time_scale_t;

typedef struct {
    double longitude;
    double latitude;
    double height;
} asdf_time_location_t;

/* The instant, for ISO texts (zeros when the text could not be read). */
typedef struct {
    struct timespec ts;
    struct tm tm;
} asdf_time_info_t;

typedef struct {
    char *value; /* the time as written */
    asdf_time_info_t info;
    asdf_time_format_t format;
    asdf_time_scale_t scale;
    asdf_time_location_t location;
} asdf_time_t;

ASDF_END_DECLS

#endif
