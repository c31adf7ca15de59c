# A gp_laplace fit is plain data: it may come back from a file, another program
# or a user's edits. The core checks every field that predict, print, summary and
# plot read (sgp_laplace_fit_check: types, shapes, finiteness, consistency; an
# error names the field, "object$root"); here the fields only take the shapes
# R's methods index: numbers as double matrices, history and steps as data
# frames. The attribute "train" is what summary and plot read, computed by the
# core (sgp_laplace_train_plain: loglik, accuracy, plot_scale, plot_y). Fields
# are read with their exact names ($ would partially match).
laplace_fit_check <- function(object, fn, arg = "object") {
  train <- sgp_call(C_laplace_predict, object, fn, arg, NULL, list())
  get <- function(name) object[[name, exact = TRUE]]
  mat <- function(name) {
    v <- get(name)
    if (is.null(dim(v))) v <- matrix(v, ncol = 1L)
    storage.mode(v) <- "double"
    v
  }
  k <- get("kernel")
  fit <- list(likelihood = get("likelihood"), n_class = as.integer(get("n_class")),
              levels = get("levels"),
              kernel = list(kernel = k$kernel, lengthscale = as.double(k$lengthscale),
                            outputscale = as.double(k$outputscale)),
              x = mat("x"), f = mat("f"), var = mat("var"), weights = mat("weights"),
              root = mat("root"), y = as.double(get("y")),
              noise = if (is.null(get("noise"))) NULL else as.double(get("noise")),
              offset = if (is.null(get("offset"))) NULL else as.double(get("offset")),
              newton_steps = get("newton_steps"), iterations = get("iterations"),
              converged = get("converged"), policy = get("policy"),
              stop_reason = get("stop_reason"), history = as.data.frame(get("history")),
              steps = as.data.frame(get("steps")), test = get("test"), hyper = get("hyper"))
  for (name in c("loglik", "loglik_se", "loglik_grad", "learned", "optim")) fit[[name]] <- get(name)
  # the rest as given (the likelihood's own fields: binomial's trials, ...)
  rest <- setdiff(names(object), names(fit))
  fit[rest] <- unclass(object)[rest]
  structure(fit, class = "gp_laplace", train = train)
}
