# Installs the npm package `three` (its BVHLoader reads our BVH files in test_cli_bvh) into the
# build folder, once: cmake -DDIR=<build>/npm -DVERSION=x.y.z -P npm_three.cmake. Never into the
# source tree. Without Node or the npm registry it says so and succeeds: the checks that need
# three.js then skip with that reason.
if(EXISTS "${DIR}/node_modules/three/package.json")
  return()
endif()
find_program(NPM npm)
if(NOT NPM)
  message(STATUS "npm_three: npm is not installed (Debian: apt-get install -y nodejs npm); three.js checks will skip")
  return()
endif()
file(MAKE_DIRECTORY "${DIR}")
execute_process(COMMAND "${NPM}" install --prefix "${DIR}" --no-save --no-audit --no-fund --no-package-lock
                        "three@${VERSION}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(STATUS "npm_three: npm install three@${VERSION} failed (${rc}): ${err}; three.js checks will skip")
else()
  message(STATUS "npm_three: installed three@${VERSION} in ${DIR}")
endif()
