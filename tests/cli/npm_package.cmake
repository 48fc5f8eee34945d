# Installs one npm package (a test's client, e.g. osc for test_cli_vmc's VMC receiver) into its
# own folder of the build tree, once: cmake -DDIR=<build>/npm-NAME -DPACKAGE=name -DVERSION=x.y.z
# -P npm_package.cmake. Never into the source tree; one folder per package, since npm prunes what
# it did not install itself. Without npm or the registry it says so and succeeds: the checks
# that need the package then skip with that reason.
if(EXISTS "${DIR}/node_modules/${PACKAGE}/package.json")
  return()
endif()
find_program(NPM npm)
if(NOT NPM)
  message(STATUS "npm_${PACKAGE}: npm is not installed (Debian: apt-get install -y nodejs npm); its checks will skip")
  return()
endif()
file(MAKE_DIRECTORY "${DIR}")
execute_process(COMMAND "${NPM}" install --prefix "${DIR}" --no-save --no-audit --no-fund --no-package-lock --omit=optional
                        "${PACKAGE}@${VERSION}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(STATUS "npm_${PACKAGE}: npm install ${PACKAGE}@${VERSION} failed (${rc}): ${err}; its checks will skip")
else()
  message(STATUS "npm_${PACKAGE}: installed ${PACKAGE}@${VERSION} in ${DIR}")
endif()
