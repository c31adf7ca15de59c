# A ski_gsgp fit is plain data (it survives saveRDS/readRDS and may be edited
# by hand): the core checks every field that predict, print, summary and plot
# read (sgp_ski_fit_check: a damaged fit gives an error naming the field instead
# of a wrong answer or an opaque one); here its grid and statistics only take R's
# shapes.
ski_check_fit <- function(object, fn, arg = "object") {
  if (!inherits(object, "ski_gsgp")) stop_arg(fn, arg, "must be a ski_gsgp fit")
  sgp_call(C_ski_predict, object, fn, arg, NULL, list(), "newdata")
  object$grid <- structure(sgp_call(C_ski_grid_check, object[["grid"]], fn, paste0(arg, "$grid")),
                           class = "ski_grid")
  object$stats <- ski_check_stats(object[["stats"]], fn, paste0(arg, "$stats"))
  object
}
