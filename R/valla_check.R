# valla_check.R -- a valla fit is plain data and may come back from a file or from
# another program damaged: the core checks the fields that predict, print,
# summary and plot read (sgp_valla_fit_check: presence by exact name, types,
# lengths, and the network as valla's own model argument); the core checks the
# values, the shapes and the P1 / P2 / prior combination again when it predicts
# (sgp_valla_fit_read).

# Stops naming the first damaged field of object (returns it invisibly when sound).
valla_check_fit <- function(object, fn, arg = "object") {
  sgp_call(C_valla_fit_check, object, fn, arg)
  invisible(object)
}
