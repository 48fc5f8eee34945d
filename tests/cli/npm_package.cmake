# Installs npm packages (a test's clients: osc, three and @pixiv/three-vrm for test_cli_vmc's
# receivers) into their own folder of the build tree, once:
#   cmake -DDIR=<build>/npm-NAME -DPACKAGES="osc@x.y.z;three@x.y.z" -P npm_package.cmake
# Never into the source tree; a folder of its own, since npm prunes what it did not install in
# the same call. Without npm or the registry it says so and succeeds: the checks that need the
# packages then skip with that reason.
set(_present TRUE)
foreach(spec IN LISTS PACKAGES)
  string(REGEX REPLACE "@[^@]*$" "" name "${spec}")
  if(NOT EXISTS "${DIR}/node_modules/${name}/package.json")
    set(_present FALSE)
  endif()
endforeach()
if(_present)
  return()
endif()
find_program(NPM npm)
if(NOT NPM)
  message(STATUS "npm_package: npm is not installed (Debian: apt-get install -y nodejs npm); the checks needing ${PACKAGES} will skip")
  return()
endif()
file(MAKE_DIRECTORY "${DIR}")
execute_process(COMMAND "${NPM}" install --prefix "${DIR}" --no-save --no-audit --no-fund --no-package-lock --omit=optional
                        ${PACKAGES}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
if(NOT rc EQUAL 0)
  message(STATUS "npm_package: npm install ${PACKAGES} failed (${rc}): ${err}; the checks needing them will skip")
else()
  message(STATUS "npm_package: installed ${PACKAGES} in ${DIR}")
endif()
